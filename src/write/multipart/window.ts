// The bytes of a streamed multipart body (RFC 2046 §5.1.1) that the parser has received but not
// yet passed on: usually one source chunk plus a few bytes that might begin a delimiter, so
// memory stays bounded however large a part is.

const EMPTY = new Uint8Array(0);

/**
 * Unconsumed bytes are `buf[pos, end)`. A buffer a view has been handed out of is never kept
 * or written to again, so callers may keep, or even transfer, every chunk they receive.
 */
export class ByteWindow {
  buf: Uint8Array = EMPTY;
  pos = 0;
  end = 0;
  /** True when `buf` is our own allocation, whose spare room past `end` we may fill. */
  #owned = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, initial: Uint8Array) {
    this.#reader = reader;
    this.#append(initial.slice());
  }

  get available(): number {
    return this.end - this.pos;
  }

  /**
   * Reads the next non-empty chunk from the source onto the window; false at the end of the
   * source. A source error rejects with the source's own error object.
   */
  async fill(): Promise<boolean> {
    for (;;) {
      const { done, value } = await this.#reader.read();
      if (done) return false;
      if (value.length > 0) {
        this.#append(value);
        return true;
      }
    }
  }

  /** Drops every unconsumed byte. */
  clear(): void {
    this.buf = EMPTY;
    this.pos = this.end = 0;
    this.#owned = false;
  }

  /**
   * Consumes `buf[pos, stop)` and returns it for the caller to keep. Copies whichever is
   * smaller, the bytes handed out or the bytes kept, so the common case (a whole chunk of a
   * part body) is handed out without copying.
   */
  take(stop: number): Uint8Array {
    const start = this.pos;
    const rest = this.end - stop;
    if (rest === 0) {
      const out = this.buf.subarray(start, stop);
      this.clear();
      return out;
    }
    if (stop - start <= rest) {
      this.pos = stop;
      return this.buf.slice(start, stop);
    }
    const out = this.buf.subarray(start, stop);
    this.buf = this.buf.slice(stop, this.end);
    this.pos = 0;
    this.end = rest;
    this.#owned = true;
    return out;
  }

  #append(chunk: Uint8Array): void {
    if (this.pos === this.end) {
      this.buf = chunk;
      this.pos = 0;
      this.end = chunk.length;
      this.#owned = false;
      return;
    }
    if (this.#owned && this.buf.length - this.end >= chunk.length) {
      this.buf.set(chunk, this.end);
      this.end += chunk.length;
      return;
    }
    // Kept bytes are few inside a part body (a possible delimiter start); a header section
    // arriving in small chunks grows by doubling, so it costs linear time.
    const kept = this.end - this.pos;
    const next = new Uint8Array(Math.max(kept + chunk.length, 2 * kept));
    next.set(this.buf.subarray(this.pos, this.end));
    next.set(chunk, kept);
    this.buf = next;
    this.pos = 0;
    this.end = kept + chunk.length;
    this.#owned = true;
  }
}
