// The scheduled clean-up (cron in wrangler.toml): expires idle resumable uploads, deletes what
// the intent log says no version needs (src/maintenance/collect.ts), purges expired nonces and idempotency records, and
// compacts latest versions whose lists grew past the bound when an append's own compaction did
// not run, and asks again for latest versions' Parquet twins whose build message was lost. Each
// step runs even when another fails; the summary is logged.
import { limitsFrom, mergePolicyFrom, storageTimingsFrom } from "../config.ts";
import { purgeExpiredIdempotencyRecords } from "../write/store.ts";
import { purgeExpiredNonces } from "../auth/store.ts";
import { expireUploads } from "../uploads/store.ts";
import { latestVersionsWithoutTwin, longLatestVersions } from "./store.ts";
import { requestTwins } from "./after-commit.ts";
import { collectPendingObjects } from "./collect.ts";
import { compactVersion } from "./compaction.ts";

/** At most this many compactions per run; the next run takes the rest. */
const COMPACTIONS_PER_RUN = 10;
/** Twins asked for again per run, and how long after its commit a missing twin counts as lost. */
const TWINS_PER_RUN = 20;
const TWIN_LOST_AFTER_MS = 15 * 60_000;

export interface CleanupSummary {
  pendingChecked: number;
  objectsDeleted: number;
  versionsCompacted: number;
  twinsRequested: number;
  noncesPurged: number;
  idempotencyRecordsPurged: number;
  uploadsExpired: number;
  /** Names of the steps that threw (their errors are logged). */
  failed: string[];
}

/**
 * One clean-up pass as of `now` (ms since the epoch; the cron's scheduled time). Stale
 * multipart uploads are not here: the R2 binding cannot list them, so a bucket lifecycle rule
 * aborts them (docs/storage-layout.md#maintenance).
 */
export async function runCleanup(env: Env, now: number): Promise<CleanupSummary> {
  const summary: CleanupSummary = { pendingChecked: 0, objectsDeleted: 0, versionsCompacted: 0, twinsRequested: 0, noncesPurged: 0, idempotencyRecordsPurged: 0, uploadsExpired: 0, failed: [] };
  const limits = limitsFrom(env);
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
    const policy = mergePolicyFrom(limits);
    for (const { datasetId, versionId } of await longLatestVersions(env.DB, policy.maxSegments, COMPACTIONS_PER_RUN)) {
      if ((await compactVersion(env, datasetId, versionId, policy, storageTimingsFrom(limits))) === "compacted") summary.versionsCompacted++;
    }
  });
  await step("parquet", async () => {
    const lost = await latestVersionsWithoutTwin(env.DB, new Date(now - TWIN_LOST_AFTER_MS).toISOString(), TWINS_PER_RUN);
    await requestTwins(env, lost, storageTimingsFrom(limits));
    summary.twinsRequested = lost.length;
  });
  // Before the objects: an expired upload's chunks become due, and this same run collects them.
  await step("uploads", async () => {
    summary.uploadsExpired = await expireUploads(env.DB, now);
  });
  await step("pending_objects", async () => {
    const { checked, deleted } = await collectPendingObjects(env, now);
    summary.pendingChecked = checked;
    summary.objectsDeleted = deleted;
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
