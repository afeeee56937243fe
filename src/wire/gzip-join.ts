// Serves a version's segments as one single-member gzip file (RFC 1952 §2.2) without
// recompressing: header, the segments' sync-flushed DEFLATE bytes in order, an empty final
// block (RFC 1951 §3.2.6), then CRC-32 and ISIZE — the technique of zlib's gzjoin and pigz.
import { sequenceStream, type StreamOpener } from "./stream-sequence.ts";

/**
 * RFC 1952 §2.3.1 member header: ID1 ID2 = 1f 8b, CM = 8 (deflate), FLG = 0 (no name,
 * comment or extra field: the file name travels in Content-Disposition), MTIME = 0 ("no time
 * stamp", so a version's bytes never change and its ETag and Content-Length stay stable),
 * XFL = 0, OS = 255 (unknown: the bytes are the uploader's, not the server's filesystem's).
 */
export const GZIP_HEADER: Uint8Array = Uint8Array.of(0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff);

/** Length of `gzipTrailer`: the 2-byte empty final block plus CRC32 and ISIZE. */
export const GZIP_TRAILER_LENGTH = 10;

/**
 * Closes the member: `03 00` is an empty fixed-Huffman block with BFINAL set (RFC 1951
 * §3.2.3, §3.2.6), valid because every segment ends byte-aligned; then CRC32 and
 * ISIZE = length mod 2^32, both little-endian (RFC 1952 §2.3.1).
 */
export function gzipTrailer(crc: number, rawLength: number): Uint8Array {
  if (!Number.isSafeInteger(rawLength) || rawLength < 0) {
    throw new RangeError(`gzipTrailer: rawLength must be a non-negative safe integer, got ${rawLength}`);
  }
  const out = new Uint8Array(GZIP_TRAILER_LENGTH);
  const view = new DataView(out.buffer);
  out[0] = 0x03;
  out[1] = 0x00;
  view.setUint32(2, crc >>> 0, true);
  view.setUint32(6, rawLength % 2 ** 32, true);
  return out;
}

/** Exact byte length of the joined file, known before the first segment is read. */
export function joinedGzipLength(segmentCompressedSizes: readonly number[]): number {
  let total = GZIP_HEADER.length + GZIP_TRAILER_LENGTH;
  for (const size of segmentCompressedSizes) total += size;
  return total;
}

/** Opens one segment's bytes, e.g. an R2 object body. Called at most once, when needed. */
export type SegmentOpener = StreamOpener;

/**
 * The joined gzip as a pull-based stream: nothing is opened until the consumer reads, and
 * segment i + 1 is opened only after segment i has ended, so at most one is open at a time.
 */
export function joinedGzipStream(
  segments: readonly SegmentOpener[],
  crc: number,
  rawLength: number,
): ReadableStream<Uint8Array> {
  return sequenceStream([GZIP_HEADER, ...segments, gzipTrailer(crc, rawLength)]);
}

/**
 * Compaction: consecutive segments concatenated byte for byte form one valid segment (each
 * ends byte-aligned with no final block and references nothing before it).
 */
export function concatSegments(segments: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const segment of segments) length += segment.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const segment of segments) {
    out.set(segment, at);
    at += segment.length;
  }
  return out;
}

/** Compaction as a stream, for segments too large to hold in memory together. */
export function concatSegmentStreams(segments: readonly SegmentOpener[]): ReadableStream<Uint8Array> {
  return sequenceStream(segments);
}
