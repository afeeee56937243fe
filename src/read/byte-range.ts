// The `Range` request header for one byte range (RFC 9110 §14.1.2, §14.2): what a resuming
// download or a reader such as fsspec sends. Several ranges in one header are rare and would
// need multipart/byteranges; they get the whole representation, which RFC 9110 allows.

/** First and last byte, inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * `null`: no usable Range header (absent, not `bytes`, malformed, or several ranges): answer
 * 200 with everything. `"unsatisfiable"`: answer 416 with `Content-Range: bytes *\/length`.
 */
export function parseByteRange(header: string | undefined, length: number): ByteRange | "unsatisfiable" | null {
  if (header === undefined) return null;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return null;
  const [, first, last] = match;
  if (first === "" && last === "") return null;
  if (first === "") {
    // A suffix: the last N bytes (RFC 9110 §14.1.2).
    const suffix = Number(last);
    if (suffix === 0 || length === 0) return "unsatisfiable";
    return { start: Math.max(0, length - suffix), end: length - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start) || start >= length) return "unsatisfiable";
  const end = last === "" ? length - 1 : Math.min(Number(last), length - 1);
  if (end < start) return null;
  return { start, end };
}

/**
 * RFC 9110 §13.1.5: If-Range with an entity tag matches only strongly and exactly. `etags` lists
 * every strong validator that names the bytes a range is taken from.
 */
export function ifRangeAllows(ifRange: string | undefined, etags: string | readonly string[]): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  return !value.startsWith("W/") && (typeof etags === "string" ? value === etags : etags.includes(value));
}
