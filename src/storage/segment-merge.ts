// Merging a run of segments into one object, byte for byte (docs/storage-protocol.md, invariant 6):
// shared by compaction (src/maintenance/compaction.ts) and by resumable uploads, which merge their
// chunks' segments as they arrive (src/uploads/segments.ts). Each segment is DEFLATE parts
// that reference nothing before them and end byte-aligned, so their concatenation is one valid
// segment with the same content; only the part index is shifted.
import { PART_RAW_BYTES } from "../config.ts";
import { concatSegmentStreams } from "../wire/gzip-join.ts";
import type { SegmentPart } from "../wire/parted-segment.ts";
import { partsOf } from "./segment-parts-db.ts";
import { openSegment } from "./segment-store.ts";
import type { SegmentRow } from "../model/dataset.ts";

/** The row of `run` merged under `key`: sizes summed, parts shifted to where they land. */
export function mergedSegmentRow(run: readonly SegmentRow[], key: string): SegmentRow {
  const merged: SegmentRow = { key, compressedBytes: 0, rawBytes: 0, rowCount: 0 };
  const parts: SegmentPart[] = [];
  for (const s of run) {
    for (const p of partsOf(s)) addPart(parts, { ...p, compressedOffset: merged.compressedBytes + p.compressedOffset });
    merged.compressedBytes += s.compressedBytes;
    merged.rawBytes += s.rawBytes;
    merged.rowCount += s.rowCount;
  }
  merged.parts = parts;
  return merged;
}

/**
 * Writes the run's objects, concatenated, to `merged.key`, through `through` when given (a pace,
 * src/storage/paced-stream.ts). R2 needs the length of a streamed put up front; FixedLengthStream
 * also fails the put if the bytes do not add up to what D1 says.
 */
export async function putMergedSegment(
  bucket: R2Bucket,
  run: readonly SegmentRow[],
  merged: SegmentRow,
  through?: TransformStream<Uint8Array, Uint8Array>,
): Promise<void> {
  const bytes = concatSegmentStreams(run.map((s) => () => openSegment(bucket, s.key)));
  const paced = through ? bytes.pipeThrough(through) : bytes;
  await bucket.put(merged.key, paced.pipeThrough(new FixedLengthStream(merged.compressedBytes)));
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
