// Fast 64-bit keys for the distinct and frequent-value tables: text hashed over its UTF-8 bytes
// (a string column's keys since summary format 2: src/csv/text-key.ts, where the Parquet
// encoder keys a text cell once for its dictionary and the statistics) or over its UTF-16 code units (format 1, and a numeric column's
// big integers), each in two independent 32-bit lanes with no allocation; a double's own bits;
// and a finaliser that spreads any 64-bit key evenly for table slots and HyperLogLog.
import { hashUtf8, KEY } from "../../csv/text-key.ts";

export { hashUtf8, KEY };

const BITS = new Float64Array(1);
const BITS_WORDS = new Uint32Array(BITS.buffer);
/** Which word of BITS_WORDS holds the high half (platform byte order). */
const HIGH = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * Hashes `text` into KEY (two lanes in the style of cyrb53, each with its own multiplier, so the
 * 64 bits collide only when both lanes do; two UTF-16 code units a step) and returns its length
 * in Unicode code points.
 */
export function hashString(text: string): number {
  const length = text.length;
  let h1 = 0xdeadbeef ^ length;
  let h2 = 0x41c6ce57;
  let lowSurrogates = 0;
  let i = 0;
  for (; i + 1 < length; i += 2) {
    const a = text.charCodeAt(i);
    const b = text.charCodeAt(i + 1);
    const word = a | (b << 16);
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
    if (((a | b) & 0xc000) === 0xc000) lowSurrogates += ((a & 0xfc00) === 0xdc00 ? 1 : 0) + ((b & 0xfc00) === 0xdc00 ? 1 : 0);
  }
  if (i < length) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
    if ((c & 0xfc00) === 0xdc00) lowSurrogates++;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  KEY[0] = h2;
  KEY[1] = h1;
  return length - lowSurrogates;
}

/**
 * UTF-16 code units of the UTF-8 bytes[start, start + length) holding `points` code points (as
 * hashUtf8 counted them): one a code point, two past U+FFFF (a four-byte sequence, lead 11110xxx).
 */
export function utf16Length(bytes: Uint8Array, start: number, length: number, points: number): number {
  if (points === length) return length;
  let units = points;
  for (let i = start, end = start + length; i < end; i++) if (bytes[i]! >= 0xf0) units++;
  return units;
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

/** hashUtf8 over the UTF-8 of `text` (lone surrogates as U+FFFD, as the encoder writes them). */
export function hashText(text: string): number {
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const { written } = encoder.encodeInto(text, scratch);
  return hashUtf8(scratch, 0, written);
}

/** Puts the bits of `value` into KEY, with −0 read as 0 so both are one value. */
export function keyOfNumber(value: number): void {
  BITS[0] = value + 0;
  KEY[0] = BITS_WORDS[HIGH]!;
  KEY[1] = BITS_WORDS[1 - HIGH]!;
}

/** The double whose bits are the key (high, low). */
export function numberOfKey(high: number, low: number): number {
  BITS_WORDS[HIGH] = high;
  BITS_WORDS[1 - HIGH] = low;
  return BITS[0]!;
}

/** MurmurHash3's 32-bit finaliser: every input bit reaches every output bit. */
function fmix(value: number): number {
  let h = value ^ (value >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A table slot's hash: one finaliser over both lanes, enough to spread doubles' bit patterns. */
export function slotHash(high: number, low: number): number {
  return fmix(Math.imul(high, 0x9e3779b1) ^ low);
}

/**
 * A big integer's key: its digits' hash put in the NaN space of doubles (sign, exponent and the
 * quiet bit set), which no other value of a numeric column uses, keeping 51 bits of the hash.
 */
export function boxKey(): void {
  KEY[0] = (KEY[0]! | 0xfff80000) >>> 0;
}

/** Whether a numeric key is a boxed big integer rather than a double's bits. */
export function isBoxed(high: number): boolean {
  return high >>> 19 === 0x1fff;
}

/** The high 32 bits of a well-spread key: table slots and HyperLogLog registers read these. */
export function mixHigh(high: number, low: number): number {
  return fmix(high ^ fmix(low ^ 0x9e3779b9));
}

/** The low 32 bits of a well-spread key (the same lanes mixed the other way round). */
export function mixLow(high: number, low: number): number {
  return fmix(low ^ fmix((high + 0x7f4a7c15) | 0));
}
