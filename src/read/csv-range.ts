// A byte range of a version's uncompressed CSV, inflating only the parts it covers: every
// part of a segment starts at a block boundary with nothing referenced before it (docs/storage-protocol.md), so
// the covered parts inflate alone from one R2 range read of their bytes. A resumed `.csv`
// download then costs what it still needs, not the whole file again.
import { inflatePartRange, viewStream, type OpenSegmentRange } from "../storage/segment-inflate.ts";
import type { SegmentPart } from "../wire/parted-segment.ts";
import { sequenceStream, type StreamOpener } from "../wire/stream-sequence.ts";

/** Inflated bytes handed on at a time. */
const VIEW_BYTES = 64 * 1024;

/** One stored segment: its part list (partsOf) and its object's byte ranges. */
export interface RawSegment {
  parts: readonly SegmentPart[];
  open: OpenSegmentRange;
}

/** Bytes [skip, skip + count) of `views`, stopping the read once they are given. */
async function* slice(views: AsyncGenerator<Uint8Array>, skip: number, count: number): AsyncGenerator<Uint8Array> {
  let at = 0;
  for await (const view of views) {
    const from = Math.max(0, skip - at);
    const to = Math.min(view.length, skip + count - at);
    if (from < to) yield view.subarray(from, to);
    at += view.length;
    if (at >= skip + count) return;
  }
}

/**
 * Bytes [start, end] (inclusive) of the concatenated raw content of `segments`, as a pull
 * stream: one R2 read per segment the range meets, of the parts it covers, inflated a group
 * at a time as the response is read (inflatePartRange).
 */
export function rawRangeStream(segments: readonly RawSegment[], start: number, end: number): ReadableStream<Uint8Array> {
  const wanted: StreamOpener[] = [];
  let at = 0;
  for (const segment of segments) {
    let first = -1;
    let last = -1;
    let skip = 0;
    let count = 0;
    for (const [index, part] of segment.parts.entries()) {
      if (at <= end && start < at + part.rawBytes) {
        if (first < 0) {
          first = index;
          skip = Math.max(start, at) - at;
        }
        last = index;
        count += Math.min(end + 1, at + part.rawBytes) - Math.max(start, at);
      }
      at += part.rawBytes;
    }
    if (first < 0) continue;
    const views = (): AsyncGenerator<Uint8Array> => inflatePartRange(segment.open, segment.parts, first, last + 1, VIEW_BYTES);
    wanted.push(async () => viewStream(slice(views(), skip, count)));
  }
  return sequenceStream(wanted);
}
