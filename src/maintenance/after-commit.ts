// Work that follows a commit but must never delay its answer (docs/storage-protocol.md#compaction,
// "The Parquet twin"): a write only enqueues it, compaction on the AFTER_COMMIT queue and twin
// builds on TWINS (delivered at once, not batched, wrangler.toml), and the queues' one
// consumer does it in an invocation of its own: the version's Parquet twin after every write
// (columnar/build.ts), and compaction after an append (compaction.ts), which then rebuilds the
// twin over the merged segments. Without the binding (a test env that leaves it out) the work
// runs after the response, in the request's waitUntil, under that env's policy.
//
//   write committed  → defer(send [{compact, dataset, version} for an append] + {parquet, …},
//                      an append's twin message delayed APPEND_TWIN_DELAY_SECONDS)
//   consumer batch   → per message: do it, then ack; a twin build that throws is retried with
//                      a growing delay, and after its last attempt the twin is marked failed
//   twin message     → asked by a reader, or the version is the dataset's latest → build it;
//                      superseded, and no twin of the dataset published for TWIN_STALE_MS →
//                      build the latest instead; else skip (the newer version's message builds)
//   compaction lost or failed for good → the clean-up cron finds the list out of shape (cleanup.ts)
//
//   compact message  → compact the dataset's latest version (once per dataset in a batch), not
//                      the message's own: under a stream of appends every message is superseded
//
// Invariants: a message is only a hint (compaction and twin builds are safe twice,
// concurrently, or beside appends: their D1 swaps are guarded), so at-least-once delivery is
// enough; a burst of appends to one dataset copies, and builds a twin, only for the newest
// version; a stream that never pauses still compacts; a superseded version's twin is built when a reader asks for it (columnar/download.ts).
import { z } from "zod";
import { compactInBackground, type ContentBindings } from "./compaction.ts";
import { buildTwin } from "../columnar/build.ts";
import { getTwinProgress, getTwinState, markTwinFailed } from "../columnar/store.ts";
import { limitsFrom, storageTimingsFrom, type MergePolicy } from "../config.ts";
import type { StorageTimings } from "../config.ts";

export const AfterCommitMessageSchema = z.object({
  kind: z.enum(["compact", "parquet"]),
  datasetId: z.string(),
  versionId: z.string(),
  /** A reader asked for the version's twin: built even when the version is superseded. */
  asked: z.boolean().optional(),
});
export type AfterCommitMessage = z.infer<typeof AfterCommitMessageSchema>;

export interface AfterCommitBindings extends ContentBindings {
  AFTER_COMMIT?: Queue;
  /** Twin builds' messages; without it they go on AFTER_COMMIT. */
  TWINS?: Queue;
}

/** Deliveries of a twin build before it is marked failed (wrangler.toml max_retries + 1). */
export const TWIN_BUILD_ATTEMPTS = 4;

/**
 * An append's twin is built this long after its commit, so that a burst of appends, whose
 * messages then find a newer version, builds the newest only (docs/storage-protocol.md "The
 * Parquet twin"). A create or PUT is built at once.
 */
export const APPEND_TWIN_DELAY_SECONDS = 5;

/** Under a steady stream of appends, the latest version's twin is built at least this often. */
export const TWIN_STALE_MS = 60_000;

/**
 * Schedules a committed version's work after the answer: its twin, and for an append its
 * compaction; on the queue, or in `defer` without one.
 */
export function scheduleAfterCommit(
  env: AfterCommitBindings,
  defer: (work: Promise<void>) => void,
  datasetId: string,
  versionId: string,
  compact: boolean,
  policy: MergePolicy,
  timings: StorageTimings,
): void {
  const queue = env.AFTER_COMMIT;
  // Compaction first: the twin is then built over the merged segments.
  const messages: AfterCommitMessage[] = compact ? [{ kind: "compact", datasetId, versionId }] : [];
  messages.push({ kind: "parquet", datasetId, versionId });
  if (!queue) {
    defer(
      (async () => {
        for (const message of messages) await runMessage(env, message, policy, timings).catch(logFailure(message));
      })(),
    );
    return;
  }
  const delayOf = (message: AfterCommitMessage) => (compact && message.kind === "parquet" ? { delaySeconds: APPEND_TWIN_DELAY_SECONDS } : {});
  // One batch per queue, in the messages' order: a compaction's, then its twin's.
  const twins = env.TWINS ?? queue;
  const byQueue = new Map<Queue, AfterCommitMessage[]>();
  for (const message of messages) {
    const target = message.kind === "parquet" ? twins : queue;
    byQueue.set(target, [...(byQueue.get(target) ?? []), message]);
  }
  defer(
    Promise.all([...byQueue].map(([target, own]) => target.sendBatch(own.map((body) => ({ body, ...delayOf(body) }))))).then(
      () => undefined,
      (error: unknown) => {
        // Only a hint: the clean-up cron compacts what this would have, and builds missing twins.
        console.error(JSON.stringify({ event: "after_commit_send_failed", datasetId, versionId, error: String(error) }));
      },
    ),
  );
}

/**
 * Asks for the twins of `versions` again (the clean-up's sweep for lost messages, or `asked`: a
 * reader's request for a twin not built yet): on the queue, whose consumer retries, or built
 * here, one after another, without one.
 */
export async function requestTwins(
  env: AfterCommitBindings,
  versions: readonly { datasetId: string; versionId: string }[],
  timings: StorageTimings,
  asked = false,
): Promise<void> {
  if (versions.length === 0) return;
  const messages: AfterCommitMessage[] = versions.map(({ datasetId, versionId }) => ({ kind: "parquet", datasetId, versionId, ...(asked ? { asked } : {}) }));
  const queue = env.TWINS ?? env.AFTER_COMMIT;
  if (queue) {
    await queue.sendBatch(messages.map((body) => ({ body })));
    return;
  }
  for (const message of messages) await buildTwin(env, message.datasetId, message.versionId, timings).catch(logFailure(message));
}

function logFailure(message: AfterCommitMessage) {
  return (error: unknown) => console.error(JSON.stringify({ event: "after_commit_failed", ...message, error: String(error) }));
}

async function runMessage(env: ContentBindings, message: AfterCommitMessage, policy: MergePolicy, timings: StorageTimings): Promise<void> {
  if (message.kind === "parquet") {
    const target = message.asked ? message.versionId : await twinToBuild(env.DB, message.datasetId, message.versionId);
    if (target === null) {
      console.log(JSON.stringify({ event: "parquet_skipped", datasetId: message.datasetId, versionId: message.versionId }));
      return;
    }
    await buildTwin(env, message.datasetId, target, timings);
    return;
  }
  const compacted = await compactInBackground(env, message.datasetId, policy, timings);
  // A twin already built stitches the parts of the segments just merged away: rebuilt over the
  // merged ones, so its row groups merge as the segments did. A twin not built yet is built by
  // its own message, over the merged segments.
  if (compacted?.outcome === "compacted" && (await getTwinState(env.DB, compacted.versionId))?.state === "ready") {
    await buildTwin(env, message.datasetId, compacted.versionId, timings);
  }
}

/**
 * Which twin a build message for `versionId` should build: that version's while it is the
 * dataset's latest (or the dataset is gone: the build says so); the latest's when a newer
 * version came but no twin of the dataset was published for TWIN_STALE_MS (a steady stream of
 * appends, whose messages all find a newer version); else none, as the newer version's message
 * will build.
 */
async function twinToBuild(db: D1Database, datasetId: string, versionId: string): Promise<string | null> {
  const progress = await getTwinProgress(db, datasetId);
  if (progress.latest === null || progress.latest === versionId) return versionId;
  const stale = progress.lastPublished === null || Date.parse(progress.lastPublished) < Date.now() - TWIN_STALE_MS;
  return stale ? progress.latest : null;
}

/**
 * The queue consumer: each message's work, one at a time. A malformed message is dropped; a
 * twin build that throws is retried later, and marked failed, with its reason, on its last try.
 */
export async function consumeAfterCommit(batch: MessageBatch<unknown>, env: ContentBindings, policy: MergePolicy, timings: StorageTimings): Promise<void> {
  // A compaction works on the dataset's latest version whichever append asked, so one per dataset a batch.
  const compacted = new Set<string>();
  for (const message of batch.messages) {
    const parsed = AfterCommitMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ event: "after_commit_malformed", id: message.id }));
      message.ack();
      continue;
    }
    if (parsed.data.kind === "compact") {
      if (compacted.has(parsed.data.datasetId)) {
        message.ack();
        continue;
      }
      compacted.add(parsed.data.datasetId);
    }
    try {
      await runMessage(env, parsed.data, policy, timings);
      message.ack();
    } catch (error: unknown) {
      logFailure(parsed.data)(error);
      if (parsed.data.kind === "parquet" && message.attempts < TWIN_BUILD_ATTEMPTS) {
        message.retry({ delaySeconds: Math.min(3600, 30 * 2 ** message.attempts) });
        continue;
      }
      if (parsed.data.kind === "parquet") await markTwinFailed(env.DB, parsed.data.versionId, String(error)).catch(() => {});
      message.ack();
    }
  }
}

/**
 * A reader asked for a version's twin that is not built (its message skipped as superseded, or
 * not handled yet): its build is asked for after the answer, which stays 503 pending meanwhile.
 * Asking again while a build runs is harmless: a build finds a ready twin unchanged.
 */
export function askForTwin(env: AfterCommitBindings & Env, defer: (work: Promise<void>) => void, datasetId: string, versionId: string): void {
  defer(
    requestTwins(env, [{ datasetId, versionId }], storageTimingsFrom(limitsFrom(env)), true).catch((error: unknown) => {
      console.error(JSON.stringify({ event: "parquet_ask_failed", datasetId, versionId, error: String(error) }));
    }),
  );
}
