// D1 queries of compaction and the scheduled clean-up (SPEC B7): the guarded swap of a
// version's segment list for one compacted segment, and the look-ups that tell which R2
// objects and segment rows no committed version can reach any more.
import type { SegmentRow } from "./datasets-db.ts";
import { insertPartsStatement } from "./segment-parts-db.ts";

export interface CompactionCommit {
  datasetId: string;
  versionId: string;
  /** The list as it was read before its bytes were concatenated. */
  expected: { count: number; firstKey: string; lastKey: string };
  segment: SegmentRow;
  created: string;
}

/**
 * Replaces the version's segment list with the one compacted segment, in one transaction,
 * only if the list is still the one that was read (a concurrent compaction may have won).
 * True when applied. Only this version's rows change: other versions keep their own lists.
 */
export async function commitCompaction(db: D1Database, commit: CompactionCommit): Promise<boolean> {
  const s = commit.segment;
  const [inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO segments (key, dataset_id, compressed_bytes, raw_bytes, row_count, created)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6
         WHERE EXISTS (SELECT 1 FROM versions WHERE id = ?7 AND dataset_id = ?2)
           AND (SELECT COUNT(*) FROM version_segments WHERE version_id = ?7) = ?8
           AND (SELECT segment_key FROM version_segments WHERE version_id = ?7 ORDER BY position LIMIT 1) = ?9
           AND (SELECT segment_key FROM version_segments WHERE version_id = ?7 ORDER BY position DESC LIMIT 1) = ?10`,
      )
      .bind(s.key, commit.datasetId, s.compressedBytes, s.rawBytes, s.rowCount, commit.created, commit.versionId,
        commit.expected.count, commit.expected.firstKey, commit.expected.lastKey),
    // The rest apply only when the row above was inserted: its key is fresh, so it exists
    // exactly when the guard held.
    db
      .prepare("DELETE FROM version_segments WHERE version_id = ?1 AND EXISTS (SELECT 1 FROM segments WHERE key = ?2)")
      .bind(commit.versionId, s.key),
    db
      .prepare(
        `INSERT INTO version_segments (version_id, position, segment_key)
         SELECT ?1, 0, ?2 WHERE EXISTS (SELECT 1 FROM segments WHERE key = ?2)`,
      )
      .bind(commit.versionId, s.key),
    ...(s.parts && s.parts.length > 1 ? [insertPartsStatement(db, s.key, s.parts)] : []),
  ]);
  return (inserted?.meta.changes ?? 0) === 1;
}

/**
 * Of the given object keys, those with a segment row of a dataset that still exists. One
 * bound JSON array instead of one parameter per key keeps under D1's 100-parameter limit.
 */
export async function liveSegmentKeys(db: D1Database, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { results } = await db
    .prepare(
      `SELECT s.key FROM segments s JOIN datasets d ON d.id = s.dataset_id
       WHERE s.key IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(keys))
    .all<{ key: string }>();
  return new Set(results.map((r) => r.key));
}

/**
 * Segment rows no version references, created before `cutoff` (ISO time), in a dataset that
 * made no segment since then. Segments only become unreferenced when a compaction replaces
 * them, and that compaction's own segment is new: so this waits an hour after the compaction,
 * long enough for any download that read the old list to finish.
 */
export async function unreferencedSegmentKeys(db: D1Database, cutoff: string, after: string, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT s.key FROM segments s
       WHERE s.key > ?2 AND s.created < ?1
         AND NOT EXISTS (SELECT 1 FROM version_segments vs WHERE vs.segment_key = s.key)
         AND NOT EXISTS (SELECT 1 FROM segments r WHERE r.dataset_id = s.dataset_id AND r.created >= ?1)
       ORDER BY s.key LIMIT ?3`,
    )
    .bind(cutoff, after, limit)
    .all<{ key: string }>();
  return results.map((r) => r.key);
}

/**
 * Deletes those of the given segment rows still unreferenced, with their part rows, in one
 * transaction; returns the keys deleted.
 */
export async function deleteUnreferencedSegments(db: D1Database, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const unreferenced = `SELECT value FROM json_each(?1)
       WHERE NOT EXISTS (SELECT 1 FROM version_segments vs WHERE vs.segment_key = value)`;
  const [, deleted] = await db.batch<{ key: string }>([
    db.prepare(`DELETE FROM segment_parts WHERE segment_key IN (${unreferenced})`).bind(JSON.stringify(keys)),
    db.prepare(`DELETE FROM segments WHERE key IN (${unreferenced}) RETURNING key`).bind(JSON.stringify(keys)),
  ]);
  return (deleted?.results ?? []).map((r) => r.key);
}

/** Latest versions whose segment list is longer than `bound`: compaction the append missed. */
export async function longLatestVersions(db: D1Database, bound: number, limit: number): Promise<{ datasetId: string; versionId: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT d.id AS dataset_id, d.latest_version AS version_id FROM datasets d
       WHERE (SELECT COUNT(*) FROM version_segments vs WHERE vs.version_id = d.latest_version) > ?1
       LIMIT ?2`,
    )
    .bind(bound, limit)
    .all<{ dataset_id: string; version_id: string }>();
  return results.map((r) => ({ datasetId: r.dataset_id, versionId: r.version_id }));
}
