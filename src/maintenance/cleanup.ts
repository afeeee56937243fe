// The scheduled clean-up (cron in wrangler.toml): removes what no committed version reaches,
// purges expired nonces and idempotency records, and compacts versions whose compaction after
// the append did not happen. Each step runs even when another fails; the summary is logged.
import { limitsFrom } from "../config.ts";
import { purgeExpiredIdempotencyRecords } from "../storage/idempotency-db.ts";
import { purgeExpiredNonces } from "../storage/keys-db.ts";
import { longLatestVersions } from "../storage/maintenance-db.ts";
import { compactVersion } from "./compaction.ts";
import { deleteOrphanObjects, deleteUnreferencedSegmentRows } from "./orphans.ts";

/** How long unreachable content is kept: longer than any write or download takes. */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

/** At most this many compactions per run; the next run takes the rest. */
const COMPACTIONS_PER_RUN = 10;

export interface CleanupSummary {
  objectsScanned: number;
  orphansDeleted: number;
  unreferencedSegmentsDeleted: number;
  versionsCompacted: number;
  noncesPurged: number;
  idempotencyRecordsPurged: number;
  /** Names of the steps that threw (their errors are logged). */
  failed: string[];
}

/**
 * One clean-up pass as of `now` (ms since the epoch; the cron's scheduled time). Stale
 * multipart uploads are not here: the R2 binding cannot list them, so a bucket lifecycle rule
 * aborts them (README "Maintenance").
 */
export async function runCleanup(env: Env, now: number): Promise<CleanupSummary> {
  const summary: CleanupSummary = {
    objectsScanned: 0,
    orphansDeleted: 0,
    unreferencedSegmentsDeleted: 0,
    versionsCompacted: 0,
    noncesPurged: 0,
    idempotencyRecordsPurged: 0,
    failed: [],
  };
  const cutoff = new Date(now - ORPHAN_MIN_AGE_MS);
  const nowSeconds = Math.floor(now / 1000);
  const step = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error: unknown) {
      summary.failed.push(name);
      console.error(JSON.stringify({ event: "cleanup_step_failed", step: name, error: String(error) }));
    }
  };
  await step("compaction", async () => {
    const bound = limitsFrom(env).compactAfterSegments;
    for (const { datasetId, versionId } of await longLatestVersions(env.DB, bound, COMPACTIONS_PER_RUN)) {
      if ((await compactVersion(env, datasetId, versionId, bound)) === "compacted") summary.versionsCompacted++;
    }
  });
  await step("unreferenced_segments", async () => {
    summary.unreferencedSegmentsDeleted = await deleteUnreferencedSegmentRows(env, cutoff);
  });
  await step("orphan_objects", async () => {
    const { scanned, deleted } = await deleteOrphanObjects(env, cutoff);
    summary.objectsScanned = scanned;
    summary.orphansDeleted = deleted;
  });
  await step("nonces", async () => {
    summary.noncesPurged = await purgeExpiredNonces(env.DB, nowSeconds);
  });
  await step("idempotency_records", async () => {
    summary.idempotencyRecordsPurged = await purgeExpiredIdempotencyRecords(env.DB, nowSeconds);
  });
  console.log(JSON.stringify({ event: "cleanup", ...summary }));
  return summary;
}
