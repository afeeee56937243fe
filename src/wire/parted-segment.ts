// One segment written as a sequence of parts (docs/storage-protocol.md, docs/storage-layout.md): each part has
// its own compressor and ends with the sync flush, so the object is still one valid segment,
// yet any part inflates alone from its byte range — the rows endpoint reads only the part it needs.
import { crc32Combine } from "./crc32.ts";
import { SegmentCompressor, type SegmentTotals } from "./deflate-segment.ts";

/** One independently decodable part of a segment object. */
export interface SegmentPart {
  /** Where the part's compressed bytes start in the object. */
  compressedOffset: number;
  compressedBytes: number;
  rawBytes: number;
  /** Data rows in the part (a version's first part also holds the header, not counted). */
  rowCount: number;
}

/**
 * Compresses a segment part by part. `onChunk` receives every part's compressed bytes in
 * order; `endPart` closes the current part (the caller cuts only at record boundaries).
 */
export class PartedCompressor {
  readonly #level: number;
  readonly #onChunk: (bytes: Uint8Array) => void;
  #current: SegmentCompressor | null = null;
  readonly #parts: SegmentPart[] = [];
  #compressedBytes = 0;
  #rawBytes = 0;
  #crc = 0;

  constructor(level: number, onChunk: (bytes: Uint8Array) => void) {
    this.#level = level;
    this.#onChunk = onChunk;
  }

  /** Raw bytes pushed into the part still open. */
  get partRawBytes(): number {
    return this.#current?.rawBytes ?? 0;
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#current ??= new SegmentCompressor(this.#level, this.#onChunk);
    this.#current.push(bytes);
  }

  /** Closes the open part holding `rowCount` data rows; no-op when it holds no bytes. */
  endPart(rowCount: number): void {
    const current = this.#current;
    if (!current) return;
    this.#current = null;
    const totals = current.finish();
    this.#parts.push({ compressedOffset: this.#compressedBytes, compressedBytes: totals.compressedBytes, rawBytes: totals.rawBytes, rowCount });
    this.#compressedBytes += totals.compressedBytes;
    this.#rawBytes += totals.rawBytes;
    this.#crc = crc32Combine(this.#crc, totals.crc, totals.rawBytes);
  }

  /** Closes the last part; an empty segment is one empty part, still a valid segment. */
  finish(rowCount: number): SegmentTotals & { parts: SegmentPart[] } {
    if (!this.#current && this.#parts.length === 0) this.#current = new SegmentCompressor(this.#level, this.#onChunk);
    this.endPart(rowCount);
    return { rawBytes: this.#rawBytes, compressedBytes: this.#compressedBytes, crc: this.#crc, parts: this.#parts };
  }
}
