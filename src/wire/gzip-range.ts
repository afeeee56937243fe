// A byte range of the joined gzip (gzip-join.ts) served from the stored pieces it covers: a
// slice of the header, R2 range reads of the segments it crosses, a slice of the trailer. So a
// resumed download of a large version reads from R2 only what it still needs. Pure apart from
// the openers it is handed.
import { GZIP_HEADER, gzipTrailer } from "./gzip-join.ts";
import { sequenceStream, type StreamOpener } from "./stream-sequence.ts";

/** Opens `length` bytes of a segment from `offset` (an R2 range read). */
export type RangeOpener = (offset: number, length: number) => Promise<ReadableStream<Uint8Array>>;

export interface RangedSegment {
  compressedBytes: number;
  open: RangeOpener;
}

type Piece = Uint8Array | StreamOpener;

/** The pieces making up bytes [start, end] (inclusive) of the joined file, in order. */
export function rangePieces(segments: readonly RangedSegment[], crc: number, rawLength: number, start: number, end: number): Piece[] {
  const pieces: Piece[] = [];
  let at = 0; // offset of the current piece in the joined file
  const take = (length: number, piece: (from: number, count: number) => Piece) => {
    const from = Math.max(start, at);
    const to = Math.min(end + 1, at + length);
    if (from < to) pieces.push(piece(from - at, to - from));
    at += length;
  };
  take(GZIP_HEADER.length, (from, count) => GZIP_HEADER.slice(from, from + count));
  for (const segment of segments) take(segment.compressedBytes, (from, count) => () => segment.open(from, count));
  const trailer = gzipTrailer(crc, rawLength);
  take(trailer.length, (from, count) => trailer.slice(from, from + count));
  return pieces;
}

/** Bytes [start, end] of the joined gzip as a pull stream, one R2 read open at a time. */
export function joinedGzipRangeStream(segments: readonly RangedSegment[], crc: number, rawLength: number, start: number, end: number): ReadableStream<Uint8Array> {
  return sequenceStream(rangePieces(segments, crc, rawLength, start, end));
}
