-- Workers Cache tags waiting to be purged (SPEC B6, src/edge/purge-outbox.ts). A dataset that
-- leaves public view (made private, or deleted while public) enqueues its tag and `catalog` in
-- the same transaction as the change, so no write path can forget it. One row per tag: a burst
-- of flips coalesces. `seq` changes on every enqueue, so a drain deletes a row only if nothing
-- enqueued it again while its purge was in flight: a purge is never dropped.
CREATE TABLE purge_outbox (
  tag TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  enqueued INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX purge_outbox_order ON purge_outbox (enqueued, tag);

CREATE TRIGGER purge_outbox_on_private AFTER UPDATE OF visibility ON datasets
WHEN OLD.visibility = 'public' AND NEW.visibility <> 'public'
BEGIN
  INSERT INTO purge_outbox (tag, seq, enqueued)
  VALUES ('dataset:' || NEW.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM purge_outbox), CAST(strftime('%s', 'now') AS INTEGER))
  ON CONFLICT (tag) DO UPDATE SET seq = excluded.seq;
  INSERT INTO purge_outbox (tag, seq, enqueued)
  VALUES ('catalog', (SELECT COALESCE(MAX(seq), 0) + 1 FROM purge_outbox), CAST(strftime('%s', 'now') AS INTEGER))
  ON CONFLICT (tag) DO UPDATE SET seq = excluded.seq;
END;

CREATE TRIGGER purge_outbox_on_delete AFTER DELETE ON datasets
WHEN OLD.visibility = 'public'
BEGIN
  INSERT INTO purge_outbox (tag, seq, enqueued)
  VALUES ('dataset:' || OLD.id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM purge_outbox), CAST(strftime('%s', 'now') AS INTEGER))
  ON CONFLICT (tag) DO UPDATE SET seq = excluded.seq;
  INSERT INTO purge_outbox (tag, seq, enqueued)
  VALUES ('catalog', (SELECT COALESCE(MAX(seq), 0) + 1 FROM purge_outbox), CAST(strftime('%s', 'now') AS INTEGER))
  ON CONFLICT (tag) DO UPDATE SET seq = excluded.seq;
END;
