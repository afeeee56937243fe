// D1 queries of compaction (docs/storage-protocol.md): the guarded swap of a run of segments for the one merged
// segment in every version that holds it, and the look-up of lists the appends left too long.
import { claimableCondition, claimStatement } from "../storage/pending-objects-db.ts";
import { insertPartsStatement } from "../storage/segment-parts-db.ts";
import type { SegmentRow } from "../model/dataset.ts";

export interface CompactionCommit {
  datasetId: string;
  /** The run as read, in order: the keys the merged segment replaces. */
  run: readonly string[];
  segment: SegmentRow;
  created: string;
  /** When the replaced objects may be deleted (ms since the epoch): after any read of them ends. */
  collectReplacedAfter: number;
}

/** Versions of the dataset whose list holds the whole run (then contiguously, in order: lists
 * only grow at the end and compactions replace whole runs, so a list holding every key of a
 * run holds it as one stretch). */
const VERSIONS_WITH_RUN = `SELECT vs.version_id FROM version_segments vs
  WHERE vs.segment_key IN (SELECT value FROM json_each(?1))
  GROUP BY vs.version_id HAVING COUNT(*) = json_array_length(?1)`;

/**
 * Swaps the run for the merged segment in every version that holds it, in one transaction:
 * the version being compacted, older versions that share the run, and appends committed since.
 * Applies only while the merged object is still an unclaimed intent and some version holds the
 * run (a concurrent compaction may have won); true when applied. The merged segment takes the
 * position of the run's first segment; positions only order a list, so the gap is harmless.
 * Replaced objects no version references any more are recorded for the clean-up.
 */
export async function commitCompaction(db: D1Database, commit: CompactionCommit): Promise<boolean> {
  const s = commit.segment;
  const run = JSON.stringify(commit.run);
  const first = commit.run[0] ?? "";
  const applied = "EXISTS (SELECT 1 FROM segments WHERE key = ?2)";
  const [inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO segments (key, dataset_id, compressed_bytes, raw_bytes, row_count, created)
         SELECT ?2, ?3, ?4, ?5, ?6, ?7
         WHERE ${claimableCondition("?2")} AND EXISTS (${VERSIONS_WITH_RUN})`,
      )
      .bind(run, s.key, commit.datasetId, s.compressedBytes, s.rawBytes, s.rowCount, commit.created),
    db
      .prepare(
        `UPDATE version_segments SET segment_key = ?2
         WHERE segment_key = ?3 AND ${applied} AND version_id IN (${VERSIONS_WITH_RUN})`,
      )
      .bind(run, s.key, first),
    db
      .prepare(
        `DELETE FROM version_segments
         WHERE segment_key IN (SELECT value FROM json_each(?1)) AND ${applied}
           AND version_id IN (SELECT version_id FROM version_segments WHERE segment_key = ?2)`,
      )
      .bind(run, s.key),
    ...(s.parts && s.parts.length > 1 ? [insertPartsStatement(db, s.key, s.parts)] : []),
    db
      .prepare(
        `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
         SELECT value, ?3, 'replaced', ?4 FROM json_each(?1)
         WHERE ${applied} AND NOT EXISTS (SELECT 1 FROM version_segments vs WHERE vs.segment_key = value)
         ON CONFLICT (key) DO NOTHING`,
      )
      .bind(run, s.key, commit.datasetId, commit.collectReplacedAfter),
    claimStatement(db, [s.key]),
  ]);
  return (inserted?.meta.changes ?? 0) === 1;
}

/** Latest versions whose segment list is longer than `bound`: compactions the appends missed. */
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

/**
 * Latest versions older than `before` (ISO 8601) whose Parquet twin is neither built nor failed:
 * builds whose after-commit message was lost.
 */
export async function latestVersionsWithoutTwin(db: D1Database, before: string, limit: number): Promise<{ datasetId: string; versionId: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT d.id AS dataset_id, d.latest_version AS version_id FROM datasets d JOIN versions v ON v.id = d.latest_version
       WHERE v.created < ?1 AND NOT EXISTS (SELECT 1 FROM version_parquet p WHERE p.version_id = d.latest_version)
       ORDER BY v.created LIMIT ?2`,
    )
    .bind(before, limit)
    .all<{ dataset_id: string; version_id: string }>();
  return results.map((r) => ({ datasetId: r.dataset_id, versionId: r.version_id }));
}
