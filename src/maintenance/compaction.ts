// Tiered compaction (SPEC B7, src/storage/README.md): after an append, the trailing run of small
// segments that the merge policy picks (src/storage/compaction-plan.ts) is copied into one new
// object, byte for byte with its parts kept, and swapped in for that run in every version that
// holds it. Nothing is recompressed, so every version's `.gz` stays identical. Safe to run twice,
// concurrently, or beside appends: the swap in D1 is guarded, and a merged object that loses is
// an unclaimed intent the clean-up removes.
import { PART_RAW_BYTES } from "../config.ts";
import { planMerge, type MergePolicy } from "../storage/compaction-plan.ts";
import { getVersionSegmentsWithParts, isLatestVersion } from "../storage/datasets-db.ts";
import { concatSegmentStreams } from "../wire/gzip-join.ts";
import { commitCompaction } from "../storage/maintenance-db.ts";
import type { SegmentPart } from "../wire/parted-segment.ts";
import { recordUploadIntents } from "../storage/pending-objects-db.ts";
import { partsOf } from "../storage/segment-parts-db.ts";
import { newSegmentKey, openSegment } from "../storage/segment-store.ts";
import { pacedStream } from "../storage/paced-stream.ts";
import type { StorageTimings } from "../storage/timings.ts";
import type { SegmentRow } from "../model/dataset.ts";

export interface ContentBindings {
  DB: D1Database;
  CONTENT: R2Bucket;
}

/** `superseded`: another compaction or a delete changed the list while its bytes were copied. */
export type CompactionOutcome = "compacted" | "unchanged" | "superseded";

/** A merge takes at most a quarter of its isolate's time, in slices of 1 MiB (paced-stream.ts). */
const COPY_PACING = { sliceBytes: 1024 * 1024, share: 1 / 4, maxRestMs: 200 };

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
  const merged: SegmentRow = { key: newSegmentKey(datasetId), compressedBytes: 0, rawBytes: 0, rowCount: 0 };
  const parts: SegmentPart[] = [];
  for (const s of run) {
    for (const p of partsOf(s)) addPart(parts, { ...p, compressedOffset: merged.compressedBytes + p.compressedOffset });
    merged.compressedBytes += s.compressedBytes;
    merged.rawBytes += s.rawBytes;
    merged.rowCount += s.rowCount;
  }
  merged.parts = parts;
  const now = Date.now();
  await recordUploadIntents(env.DB, datasetId, [merged.key], now + timings.writeGraceMs);
  const bytes = concatSegmentStreams(run.map((s) => () => openSegment(env.CONTENT, s.key)));
  // R2 needs the length of a streamed put up front; FixedLengthStream also fails the put if the
  // segments' bytes do not add up to what D1 says.
  // Paced, so requests served by the same isolate run between its slices (paced-stream.ts).
  await env.CONTENT.put(merged.key, bytes.pipeThrough(pacedStream(COPY_PACING)).pipeThrough(new FixedLengthStream(merged.compressedBytes)));
  return commitCompaction(env.DB, {
    datasetId,
    run: run.map((s) => s.key),
    segment: merged,
    created: new Date().toISOString(),
    collectReplacedAfter: Date.now() + timings.readGraceMs,
  });
}

/**
 * Appends a source part to the merged object's list, shifted to where it lands. Adjacent parts
 * each start at a block boundary with no reference before it, so small ones (appends) join into
 * one part up to PART_RAW_BYTES: a page then needs one range read, not one each.
 */
function addPart(parts: SegmentPart[], part: SegmentPart): void {
  const last = parts[parts.length - 1];
  if (last && last.rawBytes + part.rawBytes <= PART_RAW_BYTES) {
    last.compressedBytes += part.compressedBytes;
    last.rawBytes += part.rawBytes;
    last.rowCount += part.rowCount;
  } else {
    parts.push({ ...part });
  }
}

/**
 * Run by the after-commit queue consumer (after-commit.ts). Never rejects: a failure only leaves the list
 * as it is until the next append or the scheduled clean-up plans again.
 */
export async function compactInBackground(
  env: ContentBindings,
  datasetId: string,
  versionId: string,
  policy: MergePolicy,
  timings: StorageTimings,
): Promise<void> {
  try {
    // A newer append holds this list and more, and enqueues its own compaction: under a
    // burst, only the newest version's compaction copies anything.
    if (!(await isLatestVersion(env.DB, datasetId, versionId))) return;
    const outcome = await compactVersion(env, datasetId, versionId, policy, timings);
    if (outcome !== "unchanged") console.log(JSON.stringify({ event: "compaction", datasetId, versionId, outcome }));
  } catch (error: unknown) {
    console.error(JSON.stringify({ event: "compaction_failed", datasetId, versionId, error: String(error) }));
  }
}
