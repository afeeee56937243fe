// The intent log of R2 objects (migrations/0007, docs/storage-protocol.md): what a write uploads is
// recorded before it is written, so an object no commit claims is always found again by the
// clean-up without listing the bucket. The statements a commit needs to claim its objects live
// here too, so the whole life of a row reads in one file.

export type PendingReason = "upload" | "replaced" | "deleted";

/** Records objects about to be uploaded; collectable after `collectAfter` unless a commit claims them. */
export async function recordUploadIntents(db: D1Database, datasetId: string, keys: readonly string[], collectAfter: number): Promise<void> {
  await db
    .prepare(
      `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
       SELECT value, ?1, 'upload', ?2 FROM json_each(?3)`,
    )
    .bind(datasetId, collectAfter, JSON.stringify(keys))
    .run();
}

/** True when `key` is still an unclaimed upload the clean-up has not started to collect. */
export function claimableCondition(keyParam: string): string {
  return `EXISTS (SELECT 1 FROM pending_objects WHERE key = ${keyParam} AND reason = 'upload' AND state = 'pending')`;
}

/** Removes the intent rows of objects a commit made reachable (run last in the commit batch). */
export function claimStatement(db: D1Database, keys: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM pending_objects WHERE key IN (SELECT value FROM json_each(?1))
       AND EXISTS (SELECT 1 FROM segments s WHERE s.key = pending_objects.key)`,
    )
    .bind(JSON.stringify(keys));
}

/**
 * Removes the intent rows of a Parquet twin's parts and tail once the twin that stitches them is
 * published (run last in its batch; a key nothing references keeps its intent).
 */
export function claimParquetStatement(db: D1Database, keys: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM pending_objects WHERE key IN (SELECT value FROM json_each(?1)) AND state = 'pending'
       AND (EXISTS (SELECT 1 FROM version_parquet_parts vp WHERE vp.part_key = pending_objects.key)
            OR EXISTS (SELECT 1 FROM version_parquet v WHERE v.tail_key = pending_objects.key))`,
    )
    .bind(JSON.stringify(keys));
}

/** Records every Parquet part and tail of a dataset for collection (part of the delete batch). */
export function recordDatasetParquetStatements(db: D1Database, datasetId: string, collectAfter: number): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
         SELECT key, dataset_id, 'deleted', ?2 FROM parquet_parts WHERE dataset_id = ?1
         ON CONFLICT (key) DO UPDATE SET reason = 'deleted', collect_after = excluded.collect_after`,
      )
      .bind(datasetId, collectAfter),
    db
      .prepare(
        `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
         SELECT v.tail_key, ?1, 'deleted', ?2 FROM version_parquet v
         WHERE v.tail_key IS NOT NULL AND v.version_id IN (SELECT id FROM versions WHERE dataset_id = ?1)
         ON CONFLICT (key) DO UPDATE SET reason = 'deleted', collect_after = excluded.collect_after`,
      )
      .bind(datasetId, collectAfter),
  ];
}

/** Records every segment of a dataset for collection (part of the delete batch, before its rows go). */
export function recordDatasetObjectsStatement(db: D1Database, datasetId: string, collectAfter: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
       SELECT key, dataset_id, 'deleted', ?2 FROM segments WHERE dataset_id = ?1
       ON CONFLICT (key) DO UPDATE SET reason = 'deleted', collect_after = excluded.collect_after`,
    )
    .bind(datasetId, collectAfter);
}

/** Due rows, oldest first. */
export async function duePendingObjects(db: D1Database, now: number, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT key FROM pending_objects WHERE collect_after <= ?1 ORDER BY collect_after LIMIT ?2")
    .bind(now, limit)
    .all<{ key: string }>();
  return results.map((r) => r.key);
}

/**
 * Of the given due keys, marks those no version references as `collecting` and returns them;
 * forgets the others (a commit claimed them after all). One transaction, so a key is either
 * referenced and kept, or unclaimable from now on and deleted.
 */
export async function startCollecting(db: D1Database, keys: readonly string[]): Promise<string[]> {
  const json = JSON.stringify(keys);
  const [marked] = await db.batch<{ key: string }>([
    db
      .prepare(
        `UPDATE pending_objects SET state = 'collecting'
         WHERE key IN (SELECT value FROM json_each(?1))
           AND NOT EXISTS (SELECT 1 FROM version_segments vs WHERE vs.segment_key = pending_objects.key)
           AND NOT EXISTS (SELECT 1 FROM version_parquet_parts vp WHERE vp.part_key = pending_objects.key)
           AND NOT EXISTS (SELECT 1 FROM version_parquet v WHERE v.tail_key = pending_objects.key)
         RETURNING key`,
      )
      .bind(json),
    db.prepare("DELETE FROM pending_objects WHERE key IN (SELECT value FROM json_each(?1)) AND state = 'pending'").bind(json),
  ]);
  return (marked?.results ?? []).map((r) => r.key);
}

/** After their objects are deleted from R2: the rows that described them, in one transaction. */
export async function finishCollecting(db: D1Database, keys: readonly string[]): Promise<void> {
  const json = JSON.stringify(keys);
  await db.batch([
    db.prepare("DELETE FROM segment_parts WHERE segment_key IN (SELECT value FROM json_each(?1))").bind(json),
    db.prepare("DELETE FROM parquet_parts WHERE key IN (SELECT value FROM json_each(?1))").bind(json),
    db.prepare("DELETE FROM segments WHERE key IN (SELECT value FROM json_each(?1))").bind(json),
    db.prepare("DELETE FROM pending_objects WHERE key IN (SELECT value FROM json_each(?1)) AND state = 'collecting'").bind(json),
  ]);
}
