// A UTF-8 byte order mark at the very start of an upload is dropped (docs/api.md#writes). It may arrive
// split across the first chunks, so up to two bytes are held until the decision can be made.

import { concat, EMPTY } from "./bytes.ts";

const BOM = [0xef, 0xbb, 0xbf];

/** What to scan next: `buf` from index `from` on. */
export interface BomCut {
  buf: Uint8Array;
  from: number;
}

export class BomStripper {
  /** Leading bytes that may still be a BOM; null once decided. */
  private head: Uint8Array | null = EMPTY;

  /** Bytes dropped as a BOM: 3 or 0. */
  dropped = 0;

  /** The input does not start here (a resumed scan): nothing to strip. */
  skip(): void {
    this.head = null;
  }

  get decided(): boolean {
    return this.head === null;
  }

  /** The next chunk, minus a BOM, or null while the first bytes could still be one. */
  next(chunk: Uint8Array): BomCut | null {
    if (this.head === null) return { buf: chunk, from: 0 };
    const buf = this.head.length === 0 ? chunk : concat(this.head, chunk);
    if (buf.length < BOM.length && buf.every((b, i) => b === BOM[i])) {
      this.head = buf.slice();
      return null;
    }
    this.head = null;
    this.dropped = BOM.every((b, i) => buf[i] === b) ? BOM.length : 0;
    return { buf, from: this.dropped };
  }

  /** End of input: held bytes that turned out not to be a BOM (a truncated one). */
  rest(): Uint8Array {
    const rest = this.head ?? EMPTY;
    this.head = null;
    return rest;
  }
}
