-- pubset schema. Storage layout and invariants are described in README.md ("Storage layout").
-- Teams, users and keys: a key belongs to one user acting for one team.
CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  created TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  created TEXT NOT NULL
);

CREATE TABLE memberships (
  team_id TEXT NOT NULL REFERENCES teams(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  PRIMARY KEY (team_id, user_id)
);

-- The secret is stored AES-GCM encrypted under the worker secret KEY_ENCRYPTION_KEY
-- (associated data: key_id); never in plaintext.
CREATE TABLE api_keys (
  key_id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  secret_iv TEXT NOT NULL,
  secret_ciphertext TEXT NOT NULL,
  created TEXT NOT NULL,
  revoked TEXT
);

-- One row per dataset; name/visibility/latest_* mirror the latest version so lists need no join.
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams(id),
  owner_id TEXT NOT NULL REFERENCES users(id),
  created TEXT NOT NULL,
  name TEXT NOT NULL,
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
  latest_version TEXT NOT NULL,
  latest_seq INTEGER NOT NULL
);
CREATE INDEX datasets_order ON datasets (created DESC, id DESC);
CREATE INDEX datasets_team ON datasets (team_id, created DESC, id DESC);
CREATE INDEX datasets_owner ON datasets (owner_id, created DESC, id DESC);

-- Immutable snapshots. UNIQUE (dataset_id, seq) is the compare-and-swap that keeps the chain
-- linear: two writers building on the same parent cannot both commit seq = parent + 1.
CREATE TABLE versions (
  id TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES datasets(id),
  seq INTEGER NOT NULL,
  parent_id TEXT,
  created TEXT NOT NULL,
  name TEXT NOT NULL,
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
  properties TEXT NOT NULL,
  file_name TEXT NOT NULL,
  columns TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  crc32 INTEGER NOT NULL,
  eol TEXT NOT NULL,
  ends_with_newline INTEGER NOT NULL,
  UNIQUE (dataset_id, seq)
);

-- A segment is one R2 object of raw DEFLATE ended by a sync flush (SPEC B7).
-- A row exists only once the segment is committed; R2 objects without a row are orphans.
CREATE TABLE segments (
  key TEXT PRIMARY KEY,
  dataset_id TEXT NOT NULL REFERENCES datasets(id),
  compressed_bytes INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  row_count INTEGER NOT NULL,
  created TEXT NOT NULL
);
CREATE INDEX segments_dataset ON segments (dataset_id);

CREATE TABLE version_segments (
  version_id TEXT NOT NULL REFERENCES versions(id),
  position INTEGER NOT NULL,
  segment_key TEXT NOT NULL REFERENCES segments(key),
  PRIMARY KEY (version_id, position)
);
CREATE INDEX version_segments_segment ON version_segments (segment_key);

-- Signature nonces, single use per key until they expire (SPEC B4).
CREATE TABLE nonces (
  key_id TEXT NOT NULL,
  nonce TEXT NOT NULL,
  expires INTEGER NOT NULL,
  PRIMARY KEY (key_id, nonce)
);
CREATE INDEX nonces_expires ON nonces (expires);
