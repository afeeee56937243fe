// Client-side gzip of uploads in the parted format (docs/storage-protocol.md, "Upload format"),
// which the server stores without recompressing: parts of about PART_RAW_BYTES cut at record
// ends, each compressed on its own and ended by a sync flush. The content is first made what
// the server keeps (a leading BOM and blank lines at the very end dropped, docs/api.md#writes), so the
// server's checks pass. The same input always gives the same bytes (hashed, then sent).
import { RecordEnds } from "../csv/record-ends.ts";
import { MAX_PART_RAW_BYTES, mergeParts, partedGzipHeader, type PartLengths, PART_RAW_BYTES } from "../wire/parted-gzip-header.ts";
import { crc32Combine } from "../wire/crc32.ts";
import { compressSegment, concatBytes } from "../wire/deflate-segment.ts";
import { gzipTrailer } from "../wire/gzip-join.ts";

/** 1 is fastest, 9 smallest; 3 costs ~1.6× less CPU than 6 for a few % more bytes (docs/performance.md). 0 is read as 1. */
export type GzipLevel = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
export const DEFAULT_GZIP_LEVEL: GzipLevel = 3;

const BOM = [0xef, 0xbb, 0xbf];

/** One part as cut: its compressed bytes, lengths and the CRC-32 of its raw bytes. */
export interface CutPart extends PartLengths {
  data: Uint8Array;
  crc: number;
}

export interface PartedSummary {
  parts: PartLengths[];
  rawBytes: number;
  crc: number;
}

/** The bytes around the parts: the header with the part index, and the gzip trailer. */
export function partedEnvelope(summary: PartedSummary): { header: Uint8Array; trailer: Uint8Array } {
  return { header: partedGzipHeader(mergeParts(summary.parts)), trailer: gzipTrailer(summary.crc, summary.rawBytes) };
}

/**
 * Raw CSV in, the parts' compressed bytes out (no header or trailer: those need the whole
 * index, see partedEnvelope). `summary` resolves once the stream has ended.
 */
export function partedDeflateStream(
  level: number,
  partRawBytes = PART_RAW_BYTES,
): { stream: TransformStream<Uint8Array, Uint8Array>; summary: Promise<PartedSummary> } {
  const cutter = new PartCutter(Math.min(9, Math.max(1, level)), partRawBytes);
  let resolve: (summary: PartedSummary) => void = () => {};
  const summary = new Promise<PartedSummary>((res) => (resolve = res));
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      for (const part of cutter.push(chunk)) controller.enqueue(part.data);
    },
    flush(controller) {
      for (const part of cutter.finish()) controller.enqueue(part.data);
      resolve(cutter.summary);
    },
  });
  return { stream, summary };
}

/** Cuts raw CSV into parts at record ends and compresses each alone (the format's producer). */
export class PartCutter {
  readonly #level: number;
  readonly #target: number;
  readonly #ends = new RecordEnds();
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** Offset of the held bytes' first byte in the content. */
  #partStart = 0;
  #bomDecided = false;
  readonly summary: PartedSummary = { parts: [], rawBytes: 0, crc: 0 };

  constructor(level: number, target: number) {
    this.#level = level;
    this.#target = target;
  }

  push(input: Uint8Array): CutPart[] {
    let chunk = input;
    if (!this.#bomDecided) {
      const head = this.#concat([...this.#held, chunk]);
      if (head.length < BOM.length && BOM.slice(0, head.length).every((b, i) => head[i] === b)) {
        this.#held = [head];
        this.#heldBytes = head.length;
        return [];
      }
      this.#bomDecided = true;
      chunk = BOM.every((b, i) => head[i] === b) ? head.subarray(BOM.length) : head;
      this.#held = [];
      this.#heldBytes = 0;
    }
    const out: CutPart[] = [];
    let from = 0;
    while (from < chunk.length) {
      const cut = this.#ends.scan(chunk, from, this.#partStart + this.#target);
      const to = cut < 0 ? chunk.length : cut;
      this.#hold(chunk.subarray(from, to));
      from = to;
      // A record longer than a part may be is cut anyway; the server then recompresses.
      if (cut >= 0 || this.#heldBytes >= MAX_PART_RAW_BYTES) out.push(this.#cut(Math.min(this.#heldBytes, MAX_PART_RAW_BYTES)));
    }
    return out;
  }

  /** The last part, without blank lines at the very end (the scanner drops them). */
  finish(): CutPart[] {
    this.#bomDecided = true;
    const rest = this.#concat(this.#held);
    const keep = Math.max(0, this.#ends.lastEnd - this.#partStart);
    const blank = /^(\r?\n)*$/.test(new TextDecoder().decode(rest.subarray(keep)));
    const length = blank ? keep : rest.length;
    this.#held = [rest];
    // Empty content is still one (empty) part; otherwise an empty last part is left out.
    if (length === 0 && this.summary.parts.length > 0) return [];
    return [this.#cut(length)];
  }

  #hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#held.push(bytes.slice());
    this.#heldBytes += bytes.length;
  }

  /** Compresses the first `length` held bytes as one part; the rest stays held. */
  #cut(length: number): CutPart {
    const all = this.#concat(this.#held);
    const part = compressSegment(all.subarray(0, length), this.#level);
    const rest = all.subarray(length);
    this.#held = rest.length > 0 ? [rest] : [];
    this.#heldBytes = rest.length;
    this.#partStart += length;
    this.summary.parts.push({ compressedBytes: part.compressedBytes, rawBytes: part.rawBytes });
    this.summary.crc = crc32Combine(this.summary.crc, part.crc, part.rawBytes);
    this.summary.rawBytes += part.rawBytes;
    return { data: part.data, compressedBytes: part.compressedBytes, rawBytes: part.rawBytes, crc: part.crc };
  }

  #concat(chunks: Uint8Array[]): Uint8Array {
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(chunks);
  }
}
