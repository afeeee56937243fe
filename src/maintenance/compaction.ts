// Tiered compaction (docs/storage-protocol.md, docs/storage-protocol.md): after an append, the trailing run of small
// segments that the merge policy picks (src/storage/compaction-plan.ts) is copied into one new
// object, byte for byte with its parts kept, and swapped in for that run in every version that
// holds it. Nothing is recompressed, so every version's `.gz` stays identical. Safe to run twice,
// concurrently, or beside appends: the swap in D1 is guarded, and a merged object that loses is
// an unclaimed intent the clean-up removes.
import { planMerge } from "../storage/compaction-plan.ts";
import { getVersionSegmentsWithParts, latestVersionId } from "../storage/datasets-db.ts";
import { commitCompaction } from "./store.ts";
import { recordUploadIntents } from "../storage/pending-objects-db.ts";
import { pacedStream } from "../storage/paced-stream.ts";
import { mergedSegmentRow, putMergedSegment } from "../storage/segment-merge.ts";
import { newSegmentKey } from "../storage/segment-store.ts";
import type { SegmentRow } from "../model/dataset.ts";
import type { MergePolicy } from "../config.ts";
import type { StorageTimings } from "../config.ts";

export interface ContentBindings {
  DB: D1Database;
  CONTENT: R2Bucket;
}

/** `superseded`: another compaction or a delete changed the list while its bytes were copied. */
export type CompactionOutcome = "compacted" | "unchanged" | "superseded";

/** A merge takes at most a quarter of its isolate's time, in slices of 256 KiB (paced-stream.ts). */
const COPY_PACING = { sliceBytes: 256 * 1024, share: 1 / 4, maxRestMs: 200 };

/** At most this many merges in one pass; a cascade (4 → 16 → 64 …) rarely needs more than three. */
const MERGES_PER_PASS = 8;

/**
 * Merges what the policy asks for in the version's list, one run at a time, until the list is
 * in shape. "compacted" when at least one merge applied.
 */
export async function compactVersion(
  env: ContentBindings,
  datasetId: string,
  versionId: string,
  policy: MergePolicy,
  timings: StorageTimings,
): Promise<CompactionOutcome> {
  let merged = 0;
  for (let pass = 0; pass < MERGES_PER_PASS; pass++) {
    const segments = await getVersionSegmentsWithParts(env.DB, versionId);
    const run = planMerge(segments.map((s) => s.compressedBytes), policy);
    if (!run) break;
    if (!(await mergeRun(env, datasetId, segments.slice(run.start, run.end), timings))) {
      return merged > 0 ? "compacted" : "superseded";
    }
    merged++;
  }
  return merged > 0 ? "compacted" : "unchanged";
}

/** Copies the run into one object (intent first), then swaps it in; true when the swap applied. */
async function mergeRun(env: ContentBindings, datasetId: string, run: SegmentRow[], timings: StorageTimings): Promise<boolean> {
  const merged = mergedSegmentRow(run, newSegmentKey(datasetId));
  await recordUploadIntents(env.DB, datasetId, [merged.key], Date.now() + timings.writeGraceMs);
  // Paced, so requests served by the same isolate run between its slices (paced-stream.ts).
  await putMergedSegment(env.CONTENT, run, merged, pacedStream(COPY_PACING));
  return commitCompaction(env.DB, {
    datasetId,
    run: run.map((s) => s.key),
    segment: merged,
    created: new Date().toISOString(),
    collectReplacedAfter: Date.now() + timings.readGraceMs,
  });
}

/**
 * Run by the after-commit queue consumer (after-commit.ts) for an append's message: compacts the
 * dataset's latest version, whichever append's message asks. Under a stream of appends every
 * message finds a newer version than its own, so skipping those would leave the list growing
 * for as long as the stream lasts; the latest holds every older list's segments and more.
 * Never rejects: a failure only leaves the list as it is until the next message or the
 * scheduled clean-up plans again. Null when the dataset is gone or the compaction failed.
 */
export async function compactInBackground(
  env: ContentBindings,
  datasetId: string,
  policy: MergePolicy,
  timings: StorageTimings,
): Promise<{ versionId: string; outcome: CompactionOutcome } | null> {
  let versionId: string | null = null;
  try {
    versionId = await latestVersionId(env.DB, datasetId);
    if (versionId === null) return null;
    const outcome = await compactVersion(env, datasetId, versionId, policy, timings);
    if (outcome !== "unchanged") console.log(JSON.stringify({ event: "compaction", datasetId, versionId, outcome }));
    return { versionId, outcome };
  } catch (error: unknown) {
    console.error(JSON.stringify({ event: "compaction_failed", datasetId, versionId, error: String(error) }));
    return null;
  }
}
