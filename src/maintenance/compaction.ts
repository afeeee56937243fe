// Compaction (SPEC B7): a version whose segment list grew long gets one R2 object holding its
// segments' bytes back to back (still no recompression, parts kept), so a download needs one R2 read.
// Safe to run twice, concurrently, or beside a new append: the swap in D1 is guarded.
import { PART_RAW_BYTES } from "../config.ts";
import { getVersionSegmentsWithParts, type SegmentRow } from "../storage/datasets-db.ts";
import { concatSegmentStreams } from "../storage/gzip-join.ts";
import { commitCompaction } from "../storage/maintenance-db.ts";
import type { SegmentPart } from "../storage/parted-segment.ts";
import { partsOf } from "../storage/segment-parts-db.ts";
import { deleteObjects, newSegmentKey, openSegment } from "../storage/segment-store.ts";

/** `superseded`: the list changed while its bytes were copied (another compaction won). */
export type CompactionOutcome = "compacted" | "unchanged" | "superseded";

export interface ContentBindings {
  DB: D1Database;
  CONTENT: R2Bucket;
}

/**
 * Concatenates the version's segments into one new object and points the version at it. The
 * content, its length and CRC-32 do not change, nor does the `.gz` download by one byte. The
 * old objects stay: older versions still use them, and the clean-up removes the rest.
 */
export async function compactVersion(
  env: ContentBindings,
  datasetId: string,
  versionId: string,
  longerThan = 1,
): Promise<CompactionOutcome> {
  const segments = await getVersionSegmentsWithParts(env.DB, versionId);
  const first = segments[0];
  const last = segments[segments.length - 1];
  if (segments.length <= Math.max(1, longerThan) || !first || !last) return "unchanged";
  const merged: SegmentRow = { key: newSegmentKey(datasetId), compressedBytes: 0, rawBytes: 0, rowCount: 0 };
  const parts: SegmentPart[] = [];
  for (const s of segments) {
    for (const p of partsOf(s)) addPart(parts, { ...p, compressedOffset: merged.compressedBytes + p.compressedOffset });
    merged.compressedBytes += s.compressedBytes;
    merged.rawBytes += s.rawBytes;
    merged.rowCount += s.rowCount;
  }
  merged.parts = parts;
  let applied = false;
  try {
    const bytes = concatSegmentStreams(segments.map((s) => () => openSegment(env.CONTENT, s.key)));
    // R2 needs the length of a streamed put up front; FixedLengthStream also fails the put
    // if the segments' bytes do not add up to what D1 says.
    await env.CONTENT.put(merged.key, bytes.pipeThrough(new FixedLengthStream(merged.compressedBytes)));
    applied = await commitCompaction(env.DB, {
      datasetId,
      versionId,
      expected: { count: segments.length, firstKey: first.key, lastKey: last.key },
      segment: merged,
      created: new Date().toISOString(),
    });
  } finally {
    if (!applied) await discard(env.CONTENT, merged.key);
  }
  return applied ? "compacted" : "superseded";
}

/**
 * Appends a source part to the compacted object's list, shifted to where it lands. Adjacent
 * parts each start at a block boundary with no reference before it, so small ones (appends)
 * join into one part up to PART_RAW_BYTES: a page then needs one range read, not one each.
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

async function discard(bucket: R2Bucket, key: string): Promise<void> {
  try {
    await deleteObjects(bucket, [key]);
  } catch {
    // Left for the scheduled clean-up: no segment row names it, so it is an orphan.
  }
}

/**
 * Run after an append's response (ctx.waitUntil): compacts the new version when its list is
 * longer than `bound`. Never rejects; a failure only leaves the list long until the next try.
 */
export async function compactIfLong(env: ContentBindings, datasetId: string, versionId: string, bound: number): Promise<void> {
  try {
    const outcome = await compactVersion(env, datasetId, versionId, bound);
    if (outcome !== "unchanged") console.log(JSON.stringify({ event: "compaction", datasetId, versionId, outcome }));
  } catch (error: unknown) {
    console.error(JSON.stringify({ event: "compaction_failed", datasetId, versionId, error: String(error) }));
  }
}
