-- Resumable uploads (draft-ietf-httpbis-resumable-upload-15, README "Resumable uploads"): one
-- row per upload resource. Its segments are R2 objects recorded in pending_objects like any
-- write's; this row lists them in order (`progress`, JSON) with what the scan has carried
-- across chunks: the scanner's checkpoint at the last record end and the bytes after it
-- (`carry`), which the next chunk is scanned after. `upload_offset` is the compare-and-swap
-- of concurrent appends. An upload idle past `expires_at` (ms) is removed by the clean-up.
CREATE TABLE uploads (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('create', 'update', 'append')),
  dataset_id TEXT NOT NULL,
  if_match TEXT,
  -- The creation request's description: collection, file name, gzip (JSON).
  request TEXT NOT NULL,
  upload_offset INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'completing', 'done', 'failed')),
  progress TEXT NOT NULL,
  carry BLOB,
  -- 'done': the final response (status, location, body); 'failed': the problem (JSON).
  outcome TEXT,
  created INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX uploads_expiry ON uploads (expires_at);
