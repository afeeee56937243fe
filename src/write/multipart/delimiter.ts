// Finding the delimiter `CRLF--boundary` of a multipart/form-data body (RFC 7578 §4.1, RFC 2046
// §5.1.1) in streamed bytes, the parser's hot loop for uploads of 100 MiB and more; reading the
// boundary from the request's Content-Type; and the window of bytes received but not yet passed
// on: usually one source chunk plus a few bytes that might begin a delimiter, so memory stays
// bounded however large a part is.
import { parseParameterised } from "./part-headers.ts";

const EMPTY = new Uint8Array(0);

/** `boundary := 0*69<bchars> bcharsnospace` (RFC 2046 §5.1.1). */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

export function isValidBoundary(boundary: string): boolean {
  return BOUNDARY.test(boundary);
}

/**
 * The `boundary` parameter of a `multipart/form-data` Content-Type (quoted or not), or null when
 * the media type is something else, or the boundary is missing, repeated or not valid per
 * RFC 2046 §5.1.1.
 */
export function boundaryFrom(contentType: string | null): string | null {
  if (contentType === null) return null;
  const parsed = parseParameterised(contentType);
  if (parsed === null || parsed.value !== "multipart/form-data") return null;
  const boundary = parsed.params.get("boundary");
  return boundary !== undefined && isValidBoundary(boundary) ? boundary : null;
}

/**
 * Finds the delimiter `CRLF "--" boundary` (RFC 2046 §5.1.1) with Boyer–Moore–Horspool shifts
 * on the window's last byte. Candidates are verified from the delimiter's first byte: since CR
 * occurs only there, partial matches cannot overlap, so even hostile data costs O(n).
 */
export class DelimiterFinder {
  readonly bytes: Uint8Array;
  readonly #skip: Uint8Array;

  constructor(boundary: string) {
    this.bytes = new TextEncoder().encode(`\r\n--${boundary}`);
    const m = this.bytes.length;
    this.#skip = new Uint8Array(256).fill(m);
    for (let i = 0; i < m - 1; i++) this.#skip[this.bytes[i]!] = m - 1 - i;
  }

  get length(): number {
    return this.bytes.length;
  }

  /** Index of the first whole delimiter in `hay[from, to)`, or -1. */
  find(hay: Uint8Array, from: number, to: number): number {
    const d = this.bytes;
    const skip = this.#skip;
    const m = d.length;
    const last = d[m - 1]!;
    // Indexes are in range by construction (i < to ≤ hay.length, start ≥ from ≥ 0), hence `!`.
    let i = from + m - 1;
    while (i < to) {
      const c = hay[i]!;
      if (c === last) {
        const start = i - m + 1;
        let j = 0;
        while (j < m - 1 && hay[start + j] === d[j]) j++;
        if (j === m - 1) return start;
      }
      i += skip[c]!;
    }
    return -1;
  }

  /**
   * Where a delimiter might begin in `hay[from, to)` but be cut off by `to`: the smallest
   * index whose bytes up to `to` are a proper prefix of the delimiter; `to` when there is none.
   * Bytes before it cannot belong to a delimiter (assuming `find` found none).
   */
  partialStart(hay: Uint8Array, from: number, to: number): number {
    const d = this.bytes;
    for (let p = Math.max(from, to - d.length + 1); p < to; p++) {
      if (hay[p] !== 13) continue;
      let j = 1;
      while (p + j < to && hay[p + j] === d[j]) j++;
      if (p + j === to) return p;
    }
    return to;
  }
}

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
