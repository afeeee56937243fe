-- The write protocol's intent log (src/storage/README.md). Every R2 object a write or a
-- compaction uploads is recorded here before its first byte; the commit that makes it
-- reachable removes the row in the same D1 batch. Objects a compaction replaced and objects of
-- deleted datasets are recorded here too. The scheduled clean-up deletes, once `collect_after`
-- (ms since the epoch) has passed, every recorded object that no version references, so it
-- never has to list the bucket.
CREATE TABLE pending_objects (
  key TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('upload', 'replaced', 'deleted')),
  collect_after INTEGER NOT NULL,
  -- 'collecting': the clean-up has found it unreferenced and is deleting it; a late commit
  -- can no longer claim it.
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'collecting'))
);
CREATE INDEX pending_objects_due ON pending_objects (collect_after);

-- Segments that an earlier compaction left unreferenced: collected by the same path.
INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
SELECT s.key, s.dataset_id, 'replaced', 0 FROM segments s
WHERE NOT EXISTS (SELECT 1 FROM version_segments vs WHERE vs.segment_key = s.key);
