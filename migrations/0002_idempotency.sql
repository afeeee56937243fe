-- Idempotency-Key records (README "Idempotent writes"): one per API key and client-chosen key.
-- The PRIMARY KEY is the lock: a second request with the same key cannot reserve it while the
-- first is in flight. Times are Unix seconds; a row past `expires` counts as absent.
CREATE TABLE idempotency_keys (
  key_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  -- SHA-256 (base64url) of method, path + query, Content-Digest and If-Match.
  request_fingerprint TEXT NOT NULL,
  -- Random per request, so only the request that reserved the row completes or releases it.
  reservation TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  status INTEGER,
  -- JSON object of the replayed headers (Content-Type, Location).
  response_headers TEXT,
  response_body TEXT,
  created INTEGER NOT NULL,
  -- in_flight: the lease end; done: the end of the replay window.
  expires INTEGER NOT NULL,
  PRIMARY KEY (key_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires);
