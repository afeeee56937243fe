// Keeps a resumable upload's segments from being many and small, so a version committed from
// many chunks reads like one sent in one request (docs/resumable-uploads.md,
// docs/storage-protocol.md). Each chunk stores one segment. A segment of UPLOAD_SEGMENT_BYTES or more is big
// enough and never copied; the tail of smaller ones after it is merged, byte for byte, as the
// chunks land, tiered as compaction merges (src/storage/compaction-plan.ts: a merge once fanIn
// of a size gather), so each byte is copied about log₅(UPLOAD_SEGMENT_BYTES / chunk) times at
// most. The last chunk merges that tail into one. The committed list is then big segments and at
// most one small one; the usual compaction shapes a long list of big ones after the commit.
import type { Limits } from "../config.ts";
import { planMerge, type MergeRun } from "../storage/compaction-plan.ts";
import { mergedSegmentRow, putMergedSegment } from "../storage/segment-merge.ts";
import type { SegmentListChange } from "./store.ts";
import type { SegmentRow } from "../model/dataset.ts";

/** More than a cascade takes: each merge makes a segment of the next tier. */
const MERGES_PER_CHUNK = 16;

/**
 * The list after `added` (the chunk's segment, null when it holds no record end yet) joins
 * `listed`, with the merges it calls for written to R2 under keys from `reserve` (intents that
 * live as long as the upload). Nothing in D1 changes here: the chunk's landing applies the change.
 */
export async function arrangeSegments(
  listed: readonly SegmentRow[],
  added: SegmentRow | null,
  final: boolean,
  context: { bucket: R2Bucket; limits: Limits; reserve: () => Promise<string> },
): Promise<SegmentListChange & { segments: SegmentRow[] }> {
  let list = added ? [...listed, added] : [...listed];
  let from = listed.length;
  const replaced: string[] = [];
  for (let merges = 0; merges < MERGES_PER_CHUNK; merges++) {
    const run = nextRun(list, final, context.limits);
    if (!run) break;
    const sources = list.slice(run.start, run.end);
    const merged = mergedSegmentRow(sources, await context.reserve());
    await putMergedSegment(context.bucket, sources, merged);
    replaced.push(...sources.map((s) => s.key));
    list = [...list.slice(0, run.start), merged];
    from = Math.min(from, run.start);
  }
  return { from, tail: list.slice(from), replaced, segments: list };
}

/** The next run of the small tail to merge: all of it on the last chunk, else what the tiers call for. */
function nextRun(list: readonly SegmentRow[], final: boolean, limits: Limits): MergeRun | null {
  let start = list.length;
  while (start > 0 && (list[start - 1]?.compressedBytes ?? Infinity) < limits.uploadSegmentBytes) start--;
  if (list.length - start < 2) return null;
  if (final) return { start, end: list.length };
  const small = list.slice(start).map((s) => s.compressedBytes);
  const run = planMerge(small, { fanIn: limits.compactionFanIn, maxSegments: Infinity, maxMergedBytes: Infinity });
  return run ? { start: start + run.start, end: list.length } : null;
}
