-- The change feed's outbox (docs/changes.md, docs/storage-protocol.md "Change events"): one row
-- per committed write, inserted by the same D1 batch that commits it. `seq` orders the feed and
-- is what cursors hold: D1 runs one write transaction at a time, so seq order is commit order,
-- and AUTOINCREMENT never hands out a number twice, even after old rows are deleted.
CREATE TABLE change_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  -- What the owning team sees: dataset.created | updated | appended | published | unpublished | deleted.
  type TEXT NOT NULL,
  -- What a reader of public data sees, decided at commit: the same type for a write that left the
  -- dataset public, dataset.withdrawn where the dataset left public view, NULL for nothing (drafts).
  public_type TEXT,
  -- Not a foreign key: the events of a dataset outlive its deletion.
  dataset_id TEXT NOT NULL,
  team_id TEXT NOT NULL,
  -- The version the write made; NULL for a delete.
  version_id TEXT,
  occurred TEXT NOT NULL
);

CREATE INDEX change_events_by_team ON change_events (team_id, seq);
CREATE INDEX change_events_public ON change_events (seq) WHERE public_type IS NOT NULL;
