-- A resumable upload's stored segments, one row each, in content order (README "Resumable
-- uploads", src/storage/README.md). They were a JSON list in `uploads.progress` with every object
-- key the upload wrote, so the row grew with every chunk until D1's 2 MB value limit refused
-- them all. Merges keep this list short (COMPACTION_MAX_SEGMENTS or so); `position` is the index
-- in the list, and a chunk that lands rewrites only its tail. Objects not listed here (a staged
-- gzip chunk, an empty segment, a merged-away run) are not kept alive by the upload: their
-- intents fall due on their own.
CREATE TABLE upload_segments (
  upload_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  key TEXT NOT NULL,
  compressed_bytes INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  row_count INTEGER NOT NULL,
  -- The object's parts (JSON SegmentPart[]), or NULL when it is one part.
  parts TEXT,
  PRIMARY KEY (upload_id, position)
);
-- The chunks that landed, held to MAX_UPLOAD_CHUNKS.
ALTER TABLE uploads ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
-- Uploads open while this migrates keep their list: moved here, and out of `progress`.
INSERT INTO upload_segments (upload_id, position, key, compressed_bytes, raw_bytes, row_count, parts)
SELECT u.id, CAST(s.key AS INTEGER), json_extract(s.value, '$.key'), json_extract(s.value, '$.compressedBytes'),
       json_extract(s.value, '$.rawBytes'), json_extract(s.value, '$.rowCount'), json_extract(s.value, '$.parts')
FROM uploads u, json_each(u.progress, '$.segments') s;
UPDATE uploads SET chunks = IFNULL(json_array_length(progress, '$.segments'), 0), progress = json_remove(progress, '$.segments', '$.keys');
