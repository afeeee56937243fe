// The boundary of a multipart/form-data body (RFC 7578 §4.1, RFC 2046 §5.1.1): reading it from
// the request's Content-Type, and finding the delimiter `CRLF--boundary` in streamed bytes,
// which is the parser's hot loop for uploads of 100 MiB and more.

import { parseParameterised } from "./params.ts";

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
