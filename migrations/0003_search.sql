-- Full-text search over each dataset's latest version (SPEC C, `GET /v1/dataset?q=`).
-- `commitVersion` rewrites a dataset's row in the same D1 batch that commits the version, so
-- the index never disagrees with the latest version; deleting a dataset deletes its row.

-- The FTS rowid of each dataset. INTEGER PRIMARY KEY aliases the rowid, so it is stable and
-- a dataset's search row is found by key, never by scanning the index.
CREATE TABLE search_docs (
  doc INTEGER PRIMARY KEY,
  dataset_id TEXT NOT NULL UNIQUE REFERENCES datasets(id)
);

-- One row per dataset, rowid = search_docs.doc. key_words holds the words joined by spaces.
-- remove_diacritics 2: "Zurich" finds "Zürich" and the other way round.
CREATE VIRTUAL TABLE dataset_search USING fts5(
  name,
  description,
  key_words,
  contact_name,
  tokenize = 'unicode61 remove_diacritics 2'
);

-- Index the datasets that exist before this migration.
INSERT INTO search_docs (dataset_id) SELECT id FROM datasets ORDER BY created, id;

INSERT INTO dataset_search (rowid, name, description, key_words, contact_name)
SELECT
  s.doc,
  v.name,
  coalesce(json_extract(v.properties, '$.description'), ''),
  coalesce((SELECT group_concat(k.value, ' ') FROM json_each(v.properties, '$.key_words') AS k), ''),
  coalesce(json_extract(v.properties, '$.contact_name'), '')
FROM search_docs s
JOIN datasets d ON d.id = s.dataset_id
JOIN versions v ON v.id = d.latest_version;
