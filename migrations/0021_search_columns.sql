-- Search also finds a dataset by its columns (docs/api.md#search): the names of the latest
-- version's columns and the `title` and `description` a publisher declared for them in its
-- Table Schema. FTS5 tables cannot gain a column, so the index is made again with a fifth one
-- and filled from the latest versions, as 0003 filled it; rowids stay search_docs.doc.
DROP TABLE dataset_search;

CREATE VIRTUAL TABLE dataset_search USING fts5(
  name,
  description,
  key_words,
  contact_name,
  columns,
  tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO dataset_search (rowid, name, description, key_words, contact_name, columns)
SELECT
  s.doc,
  v.name,
  coalesce(json_extract(v.properties, '$.description'), ''),
  coalesce((SELECT group_concat(k.value, ' ') FROM json_each(v.properties, '$.key_words') AS k), ''),
  coalesce(json_extract(v.properties, '$.contact_name'), ''),
  trim(
    coalesce((SELECT group_concat(c.value, ' ') FROM json_each(v.columns) AS c), '') || ' ' ||
    coalesce((SELECT group_concat(
      coalesce(json_extract(f.value, '$.name'), '') || ' ' ||
      coalesce(json_extract(f.value, '$.title'), '') || ' ' ||
      coalesce(json_extract(f.value, '$.description'), ''), ' ')
      FROM json_each(v.table_schema, '$.fields') AS f), '')
  )
FROM search_docs s
JOIN datasets d ON d.id = s.dataset_id
JOIN version_records v ON v.id = d.latest_version;
