// Work that follows a commit but must never delay its answer (docs/storage-protocol.md#compaction): a write only
// enqueues it on the AFTER_COMMIT queue, and the queue's consumer does it in an invocation of
// its own. Today that work is compaction after an append (compaction.ts). Without the binding
// (a test env that leaves it out) the work runs after the response, in the request's waitUntil,
// under that env's policy.
//
//   append committed → defer(send {compact, dataset, version})        the answer goes out at once
//   consumer batch   → per message: compact it if its version is still the latest, then ack
//   lost or failed for good → the clean-up cron finds the list out of shape (cleanup.ts)
//
// Invariants: a message is only a hint (compaction is safe twice, concurrently, or beside
// appends: its swap in D1 is guarded), so at-least-once delivery is enough; a burst of appends
// to one dataset copies only for the newest version.
import { z } from "zod";
import { compactInBackground, type ContentBindings } from "./compaction.ts";
import type { MergePolicy } from "../config.ts";
import type { StorageTimings } from "../config.ts";

export const AfterCommitMessageSchema = z.object({
  kind: z.literal("compact"),
  datasetId: z.string(),
  versionId: z.string(),
});
export type AfterCommitMessage = z.infer<typeof AfterCommitMessageSchema>;

export interface AfterCommitBindings extends ContentBindings {
  AFTER_COMMIT?: Queue;
}

/** Schedules the compaction of `versionId` after the answer: on the queue, or in `defer` without one. */
export function scheduleCompaction(
  env: AfterCommitBindings,
  defer: (work: Promise<void>) => void,
  datasetId: string,
  versionId: string,
  policy: MergePolicy,
  timings: StorageTimings,
): void {
  const queue = env.AFTER_COMMIT;
  if (!queue) {
    defer(compactInBackground(env, datasetId, versionId, policy, timings));
    return;
  }
  const message: AfterCommitMessage = { kind: "compact", datasetId, versionId };
  defer(
    queue.send(message).then(
      () => undefined,
      (error: unknown) => {
      // Only a hint: the clean-up cron compacts what this would have.
        console.error(JSON.stringify({ event: "after_commit_send_failed", datasetId, versionId, error: String(error) }));
      },
    ),
  );
}

/** The queue consumer: each message's work, one at a time; a malformed message is dropped. */
export async function consumeAfterCommit(batch: MessageBatch<unknown>, env: ContentBindings, policy: MergePolicy, timings: StorageTimings): Promise<void> {
  for (const message of batch.messages) {
    const parsed = AfterCommitMessageSchema.safeParse(message.body);
    if (parsed.success) await compactInBackground(env, parsed.data.datasetId, parsed.data.versionId, policy, timings);
    else console.error(JSON.stringify({ event: "after_commit_malformed", id: message.id }));
    message.ack();
  }
}
