// A byte range of a version's uncompressed CSV, inflating only the parts it covers: every
// part of a segment starts at a block boundary with nothing referenced before it (docs/storage-protocol.md), so
// it inflates alone from its R2 byte range. A resumed `.csv` download then costs what it
// still needs, not the whole file again.
import { inflateSegment } from "../storage/segment-inflate.ts";
import { sequenceStream, type StreamOpener } from "../wire/stream-sequence.ts";

/** One independently inflatable piece: a part of a segment, or a segment stored in one part. */
export interface RawPiece {
  rawBytes: number;
  /** The piece's compressed bytes (an R2 range read, or the whole object). */
  open: () => Promise<ReadableStream<Uint8Array>>;
}

/** Passes bytes [skip, skip + count) of a stream and stops reading after them. */
function slice(skip: number, count: number): TransformStream<Uint8Array, Uint8Array> {
  let at = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(0, skip - at);
      const to = Math.min(chunk.length, skip + count - at);
      if (from < to) controller.enqueue(chunk.subarray(from, to));
      at += chunk.length;
    },
  });
}

/** Bytes [start, end] (inclusive) of the concatenated raw content of `pieces`, as a pull stream. */
export function rawRangeStream(pieces: readonly RawPiece[], start: number, end: number): ReadableStream<Uint8Array> {
  const wanted: StreamOpener[] = [];
  let at = 0;
  for (const piece of pieces) {
    const from = Math.max(start, at);
    const to = Math.min(end + 1, at + piece.rawBytes);
    if (from < to) {
      const skip = from - at;
      const count = to - from;
      wanted.push(async () => inflateSegment(await piece.open()).pipeThrough(slice(skip, count)));
    }
    at += piece.rawBytes;
  }
  return sequenceStream(wanted);
}
