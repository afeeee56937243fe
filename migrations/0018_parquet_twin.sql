-- The Parquet twin of every version (docs/columnar.md, docs/storage-protocol.md "The Parquet
-- twin"). A part is one segment's rows as Parquet row groups, written under one Table Schema and
-- one set of column kinds (`encoding`, a hash of both), in its own R2 object: the row groups,
-- the part's metadata, then the statistics summary of its rows. A version's file is "PAR1", its
-- parts' row groups in segment order, and its tail (offset indexes, footer); the tail's object
-- also holds the version's merged statistics summary and its statistics document. No row in
-- version_parquet means the twin is pending.
CREATE TABLE parquet_parts (
  key TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES datasets(id),
  -- The segment whose rows it holds; not a foreign key: a part outlives its segment's
  -- compaction for as long as a twin still stitches it.
  segment_key TEXT NOT NULL,
  encoding TEXT NOT NULL,
  data_bytes INTEGER NOT NULL,
  meta_bytes INTEGER NOT NULL,
  summary_bytes INTEGER NOT NULL,
  row_count INTEGER NOT NULL,
  UNIQUE (segment_key, encoding)
);

CREATE TABLE version_parquet (
  version_id TEXT PRIMARY KEY REFERENCES versions(id),
  state TEXT NOT NULL CHECK (state IN ('ready', 'failed')),
  -- ready: the encoding its parts share, its tail object and the whole file's length.
  encoding TEXT,
  kinds TEXT,
  tail_key TEXT,
  tail_bytes INTEGER,
  summary_bytes INTEGER,
  document_bytes INTEGER,
  file_bytes INTEGER,
  -- failed: why no build can succeed, as the log says it.
  error TEXT,
  updated TEXT NOT NULL
);
CREATE INDEX version_parquet_tail ON version_parquet (tail_key);

CREATE TABLE version_parquet_parts (
  version_id TEXT NOT NULL REFERENCES versions(id),
  position INTEGER NOT NULL,
  part_key TEXT NOT NULL REFERENCES parquet_parts(key),
  PRIMARY KEY (version_id, position)
);
CREATE INDEX version_parquet_parts_part ON version_parquet_parts (part_key);
