-- The one commit of a resumable upload (README "Resumable uploads"). The last chunk's commit
-- inserts this row in its batch, so a second commit of the same upload (a worker that took over
-- an upload whose first worker seemed dead, racing one that was only slow) fails as a whole on
-- the primary key instead of committing the same rows twice.
CREATE TABLE upload_commits (
  upload_id TEXT PRIMARY KEY,
  version_id TEXT NOT NULL,
  committed INTEGER NOT NULL
);
