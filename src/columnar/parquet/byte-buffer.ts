// A growable little-endian byte writer: the one buffer type the Parquet encoder fills (page values,
// Thrift structs, dictionary pages), so the hot path writes into typed arrays and never concatenates.
// Pure: Uint8Array, DataView and TextEncoder only.

const encoder = new TextEncoder();

export class ByteBuffer {
  bytes: Uint8Array;
  view: DataView;
  length = 0;

  constructor(capacity = 1024) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Makes room for `extra` more bytes. */
  reserve(extra: number): void {
    if (this.length + extra > this.bytes.length) this.grow(this.length + extra);
  }

  private grow(needed: number): void {
    let capacity = Math.max(64, this.bytes.length * 2);
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  reset(): void {
    this.length = 0;
  }

  u8(value: number): void {
    if (this.length === this.bytes.length) this.grow(this.length + 1);
    this.bytes[this.length++] = value;
  }

  write(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  i32(value: number): void {
    if (this.length + 4 > this.bytes.length) this.grow(this.length + 4);
    this.view.setInt32(this.length, value, true);
    this.length += 4;
  }

  /** An int64 given as its two 32-bit halves (`lo` unsigned, `hi` signed). */
  i64(lo: number, hi: number): void {
    if (this.length + 8 > this.bytes.length) this.grow(this.length + 8);
    this.view.setUint32(this.length, lo, true);
    this.view.setInt32(this.length + 4, hi, true);
    this.length += 8;
  }

  f64(value: number): void {
    if (this.length + 8 > this.bytes.length) this.grow(this.length + 8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** Unsigned LEB128, for values up to 2^53. */
  varint(value: number): void {
    this.reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  /** UTF-8 of `text` prefixed by its byte length as a 4-byte little-endian int (Parquet PLAIN BYTE_ARRAY). */
  lengthPrefixedUtf8(text: string): number {
    this.reserve(4 + text.length * 3);
    const start = this.length + 4;
    const written = text.length <= SHORT_TEXT ? shortUtf8(text, this.bytes, start) : encoder.encodeInto(text, this.bytes.subarray(start)).written;
    this.view.setInt32(this.length, written, true);
    this.length = start + written;
    return written;
  }

  /** Bytes [start, end) of `from` (UTF-8 already) prefixed by their length, as lengthPrefixedUtf8 writes text. */
  lengthPrefixedBytes(from: Uint8Array, start: number, end: number): number {
    const n = end - start;
    if (this.length + 4 + n > this.bytes.length) this.grow(this.length + 4 + n);
    this.view.setInt32(this.length, n, true);
    const at = this.length + 4;
    const bytes = this.bytes;
    // A cell's text is copied by a loop up to COPY_BY_LOOP bytes: a subarray to set() from was
    // an object per cell, the largest part of the encoder's garbage (docs/performance.md).
    if (n <= COPY_BY_LOOP) for (let i = 0; i < n; i++) bytes[at + i] = from[start + i]!;
    else bytes.set(from.subarray(start, end), at);
    this.length = at + n;
    return n;
  }

  /** The bytes written so far, as a view (valid until the next write). */
  filled(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** A copy of the bytes written so far. */
  copy(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Bytes lengthPrefixedBytes copies in a loop rather than through a subarray. */
const COPY_BY_LOOP = 256;

/** Text up to this many UTF-16 units is encoded by shortUtf8: for short text a loop costs less than a call into encodeInto. */
const SHORT_TEXT = 96;

/** UTF-8 of short `text` into `out` at `at` (room for 3 bytes per unit is reserved); lone surrogates become U+FFFD, as TextEncoder does. */
function shortUtf8(text: string, out: Uint8Array, at: number): number {
  let o = at;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[o++] = c;
    } else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c < 0xe000) {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
          const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          out[o++] = 0xf0 | (point >> 18);
          out[o++] = 0x80 | ((point >> 12) & 0x3f);
          out[o++] = 0x80 | ((point >> 6) & 0x3f);
          out[o++] = 0x80 | (point & 0x3f);
          i++;
          continue;
        }
        c = 0xfffd;
      }
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 0x3f);
      out[o++] = 0x80 | (c & 0x3f);
    }
  }
  return o - at;
}

/** The UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
