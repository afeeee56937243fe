// Bytes of one field of the first record, kept so the header (or first appended row) can be
// decoded into strings. The record checker bounds it by maxHeaderBytes before every append.

// ignoreBOM keeps a U+FEFF inside a cell; the stream's own BOM is stripped before this point.
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const INITIAL_CAPACITY = 64;

export class CellBuffer {
  private buf = new Uint8Array(INITIAL_CAPACITY);
  private len = 0;

  append(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    this.reserve(n);
    this.buf.set(src.subarray(from, to), this.len);
    this.len += n;
  }

  appendByte(b: number): void {
    this.reserve(1);
    this.buf[this.len++] = b;
  }

  /** Decodes the collected bytes (already validated as UTF-8) and empties the buffer. */
  take(): string {
    const s = decoder.decode(this.buf.subarray(0, this.len));
    this.len = 0;
    return s;
  }

  /** Drops the contents and any grown capacity. */
  reset(): void {
    this.buf = new Uint8Array(INITIAL_CAPACITY);
    this.len = 0;
  }

  private reserve(n: number): void {
    const needed = this.len + n;
    if (needed <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(capacity);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
}
