// Compresses one storage segment (docs/storage-protocol.md): raw DEFLATE (RFC 1951) ending in a sync flush,
// an empty stored block (§3.2.4) that leaves the stream byte-aligned with no final block, so
// segments from separate compressors concatenate and gzip-join can close them later.
import { Deflate } from "fflate";
import { crc32Update } from "./crc32.ts";

/** Pushes are cut to this size so fflate's window buffer stays at its 96 KiB default. */
const PUSH_SLICE = 64 * 1024;

export interface SegmentTotals {
  /** Uncompressed bytes pushed. */
  rawBytes: number;
  /** Bytes handed to `onChunk`, i.e. the segment's stored size. */
  compressedBytes: number;
  /** CRC-32 of the uncompressed bytes (RFC 1952 §8), unsigned. */
  crc: number;
}

type Level = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

function checkLevel(level: number): Level {
  if (!Number.isInteger(level) || level < 1 || level > 9) {
    throw new RangeError(`compression level must be an integer 1..9, got ${level}`);
  }
  return level as Level;
}

/**
 * One segment's compressor. `onChunk` receives compressed bytes synchronously, in order, as
 * fflate produces them (each chunk is a fresh array the callee may keep).
 */
export class SegmentCompressor {
  #deflate: Deflate | undefined;
  #rawBytes = 0;
  #compressedBytes = 0;
  #crc = 0;

  constructor(level: number, onChunk: (bytes: Uint8Array) => void) {
    this.#deflate = new Deflate({ level: checkLevel(level) }, (chunk, final) => {
      const bytes = final ? syncFlushInPlaceOfFinalBlock(chunk) : chunk;
      if (bytes.length === 0) return;
      this.#compressedBytes += bytes.length;
      onChunk(bytes);
    });
  }

  push(bytes: Uint8Array): void {
    const deflate = this.#live();
    this.#crc = crc32Update(this.#crc, bytes);
    this.#rawBytes += bytes.length;
    for (let at = 0; at < bytes.length; at += PUSH_SLICE) {
      deflate.push(bytes.subarray(at, at + PUSH_SLICE));
    }
  }

  /** Ends the segment with a sync flush (`… 00 00 ff ff`), never a final block. */
  finish(): SegmentTotals {
    const deflate = this.#live();
    // fflate 0.8.3's flush(true) can write an invalid stored block (it adds the pending byte's
    // value to the bit offset and is one bit short), so it is not used. flush() compresses all
    // pending input; the final push then writes only an empty fixed block, which the callback
    // replaces with the sync flush.
    deflate.flush();
    deflate.push(EMPTY, true);
    this.#deflate = undefined;
    return this.totals;
  }

  get rawBytes(): number {
    return this.#rawBytes;
  }

  get compressedBytes(): number {
    return this.#compressedBytes;
  }

  get crc(): number {
    return this.#crc;
  }

  get totals(): SegmentTotals {
    return { rawBytes: this.#rawBytes, compressedBytes: this.#compressedBytes, crc: this.#crc };
  }

  #live(): Deflate {
    if (!this.#deflate) throw new Error("SegmentCompressor: already finished");
    return this.#deflate;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * fflate's last chunk after flush() + push(empty, true) is the stream's k pending bits
 * (0 ≤ k ≤ 7) then an empty fixed-Huffman final block — BFINAL 1, BTYPE 01, the 7-bit
 * end-of-block code 0000000 (RFC 1951 §3.2.3, §3.2.6) — zero-padded. Returns the same k bits
 * followed by an empty non-final stored block (§3.2.4): exactly zlib's Z_SYNC_FLUSH tail.
 */
function syncFlushInPlaceOfFinalBlock(tail: Uint8Array): Uint8Array {
  let highest = -1;
  for (let i = tail.length - 1; i >= 0 && highest < 0; i--) {
    const byte = tail[i] ?? 0;
    if (byte !== 0) highest = i * 8 + 31 - Math.clz32(byte);
  }
  // The highest set bit is BTYPE's low bit; BFINAL sits just below it, after the pending bits.
  const pendingBits = highest - 1;
  const first = tail[0] ?? 0;
  const expectedShape =
    pendingBits >= 0 &&
    pendingBits <= 7 &&
    ((first >> pendingBits) & 1) === 1 &&
    tail.length === Math.ceil((pendingBits + 10) / 8);
  if (!expectedShape) {
    throw new Error("SegmentCompressor: fflate's final block is not the expected empty fixed block");
  }
  const headerBytes = Math.ceil((pendingBits + 3) / 8); // pending bits + BFINAL 0 + BTYPE 00
  const out = new Uint8Array(headerBytes + 4);
  out[0] = first & ((1 << pendingBits) - 1);
  out.set([0x00, 0x00, 0xff, 0xff], headerBytes); // LEN 0, NLEN = ~LEN
  return out;
}

/** Compresses `bytes` as one whole segment (for small inputs and tests). */
export function compressSegment(bytes: Uint8Array, level: number): SegmentTotals & { data: Uint8Array } {
  const chunks: Uint8Array[] = [];
  const compressor = new SegmentCompressor(level, (chunk) => chunks.push(chunk));
  compressor.push(bytes);
  const totals = compressor.finish();
  return { ...totals, data: concatBytes(chunks, totals.compressedBytes) };
}

/** `chunks` joined into one array of `length` bytes. */
export function concatBytes(chunks: readonly Uint8Array[], length = chunks.reduce((n, chunk) => n + chunk.length, 0)): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export interface SegmentCompressorStream extends ReadableWritablePair<Uint8Array, Uint8Array> {
  /** Resolves once the writable side has closed and the last compressed byte is enqueued. */
  readonly totals: Promise<SegmentTotals>;
}

/** The compressor as a stream pair: write uncompressed bytes, read the segment's bytes. */
export function segmentCompressorStream(level: number): SegmentCompressorStream {
  let resolve: (totals: SegmentTotals) => void = () => {};
  let reject: (reason: unknown) => void = () => {};
  const totals = new Promise<SegmentTotals>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  totals.catch(() => {});
  let controllerRef: TransformStreamDefaultController<Uint8Array> | undefined;
  const compressor = new SegmentCompressor(level, (chunk) => controllerRef?.enqueue(chunk));
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      controllerRef = controller;
    },
    transform(chunk) {
      try {
        compressor.push(chunk);
      } catch (error: unknown) {
        reject(error);
        throw error;
      }
    },
    flush() {
      try {
        resolve(compressor.finish());
      } catch (error: unknown) {
        reject(error);
        throw error;
      }
    },
  });
  return { readable, writable, totals };
}
