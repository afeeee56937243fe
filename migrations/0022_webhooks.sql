-- Webhooks (docs/changes.md "Webhooks", docs/storage-protocol.md "Webhook delivery"): a team's
-- endpoints, and one delivery row per event the drain moved to the queue for an endpoint. The
-- delivery rows, not the queue, are the record: a queue message only asks for an attempt.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL,
  url TEXT NOT NULL,
  -- JSON arrays: the event types it receives (empty: all), and other teams' datasets whose public
  -- events it receives besides its team's own.
  events TEXT NOT NULL,
  datasets TEXT NOT NULL,
  -- Sealed with KEY_ENCRYPTION_KEY, as API key secrets are; the previous secret signs beside the
  -- current one until previous_until (ms) after a rotation.
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_until INTEGER,
  created TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  -- ms: the first failed attempt since the last success; 3 days on, the webhook is disabled.
  failing_since INTEGER,
  -- The drain's position in change_events for this webhook: every event up to it that the
  -- webhook may see has its delivery row.
  drained_seq INTEGER NOT NULL
);
CREATE INDEX webhooks_by_team ON webhooks (team_id, created);
CREATE INDEX webhooks_enabled ON webhooks (drained_seq) WHERE enabled = 1;

CREATE TABLE webhook_deliveries (
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  -- pending: not yet answered 2xx; delivered; withheld: the reader may no longer see it.
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'withheld')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- The last attempt: the receiver's status (NULL when none came), the first 256 bytes of its
  -- answer, or why there was no answer.
  response_status INTEGER,
  response_body TEXT,
  error TEXT,
  -- ms: when the next attempt is due (the sweep re-queues a pending row long past it).
  next_attempt INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (webhook_id, seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt) WHERE state = 'pending';
