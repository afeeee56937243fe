// Work that follows a commit but must never delay its answer (docs/storage-protocol.md#compaction,
// "The Parquet twin"): a write only enqueues it on the AFTER_COMMIT queue, and the queue's
// consumer does it in an invocation of its own: the version's Parquet twin after every write
// (columnar/build.ts), and compaction after an append (compaction.ts), which then rebuilds the
// twin over the merged segments. Without the binding (a test env that leaves it out) the work
// runs after the response, in the request's waitUntil, under that env's policy.
//
//   write committed  → defer(send {parquet, dataset, version} [+ {compact, …} for an append])
//   consumer batch   → per message: do it, then ack; a twin build that throws is retried with
//                      a growing delay, and after its last attempt the twin is marked failed
//   compaction lost or failed for good → the clean-up cron finds the list out of shape (cleanup.ts)
//
// Invariants: a message is only a hint (compaction and twin builds are safe twice,
// concurrently, or beside appends: their D1 swaps are guarded), so at-least-once delivery is
// enough; a burst of appends to one dataset copies only for the newest version.
import { z } from "zod";
import { compactInBackground, type ContentBindings } from "./compaction.ts";
import { buildTwin } from "../columnar/build.ts";
import { markTwinFailed } from "../columnar/store.ts";
import type { MergePolicy } from "../config.ts";
import type { StorageTimings } from "../config.ts";

export const AfterCommitMessageSchema = z.object({
  kind: z.enum(["compact", "parquet"]),
  datasetId: z.string(),
  versionId: z.string(),
});
export type AfterCommitMessage = z.infer<typeof AfterCommitMessageSchema>;

export interface AfterCommitBindings extends ContentBindings {
  AFTER_COMMIT?: Queue;
}

/** Deliveries of a twin build before it is marked failed (wrangler.toml max_retries + 1). */
export const TWIN_BUILD_ATTEMPTS = 4;

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
  const messages: AfterCommitMessage[] = [{ kind: "parquet", datasetId, versionId }];
  if (compact) messages.push({ kind: "compact", datasetId, versionId });
  if (!queue) {
    defer(Promise.all(messages.map((message) => runMessage(env, message, policy, timings).catch(logFailure(message)))).then(() => undefined));
    return;
  }
  defer(
    queue.sendBatch(messages.map((body) => ({ body }))).then(
      () => undefined,
      (error: unknown) => {
        // Only a hint: the clean-up cron compacts what this would have, and builds missing twins.
        console.error(JSON.stringify({ event: "after_commit_send_failed", datasetId, versionId, error: String(error) }));
      },
    ),
  );
}

/**
 * Asks for the twins of `versions` again (the clean-up's sweep for lost messages): on the queue,
 * whose consumer retries, or built here, one after another, without one.
 */
export async function requestTwins(env: AfterCommitBindings, versions: readonly { datasetId: string; versionId: string }[], timings: StorageTimings): Promise<void> {
  if (versions.length === 0) return;
  const messages: AfterCommitMessage[] = versions.map(({ datasetId, versionId }) => ({ kind: "parquet", datasetId, versionId }));
  if (env.AFTER_COMMIT) {
    await env.AFTER_COMMIT.sendBatch(messages.map((body) => ({ body })));
    return;
  }
  for (const message of messages) await buildTwin(env, message.datasetId, message.versionId, timings).catch(logFailure(message));
}

function logFailure(message: AfterCommitMessage) {
  return (error: unknown) => console.error(JSON.stringify({ event: "after_commit_failed", ...message, error: String(error) }));
}

async function runMessage(env: ContentBindings, message: AfterCommitMessage, policy: MergePolicy, timings: StorageTimings): Promise<void> {
  if (message.kind === "parquet") {
    await buildTwin(env, message.datasetId, message.versionId, timings);
    return;
  }
  await compactInBackground(env, message.datasetId, message.versionId, policy, timings);
  // The merged segments need their own part; the twin is rebuilt over them.
  await buildTwin(env, message.datasetId, message.versionId, timings);
}

/**
 * The queue consumer: each message's work, one at a time. A malformed message is dropped; a
 * twin build that throws is retried later, and marked failed, with its reason, on its last try.
 */
export async function consumeAfterCommit(batch: MessageBatch<unknown>, env: ContentBindings, policy: MergePolicy, timings: StorageTimings): Promise<void> {
  for (const message of batch.messages) {
    const parsed = AfterCommitMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ event: "after_commit_malformed", id: message.id }));
      message.ack();
      continue;
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
