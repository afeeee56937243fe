// Exact readers of the lexical forms castCell accepts (src/schema/lexical.ts), straight from a
// cell's UTF-8 bytes to the values Parquet stores: int64 halves, days since 1970, microseconds.
// They replace castCell on the hot path (no regex, no object, no string per cell) and agree with
// it on every cell they accept; a field with a pattern format or group characters goes through
// castCell first (field-text.ts), its text then read here through textBytes.
import { daysFromCivil } from "../../schema/calendar.ts";

/** The int64 a reader produced, as two 32-bit halves: `lo` unsigned, `hi` signed. */
export const int64 = { lo: 0, hi: 0, big: 0n };

const TWO_32 = 4294967296;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL_LIMIT = 10n ** 38n;

export function setInt64(value: number): void {
  int64.lo = value >>> 0;
  int64.hi = Math.floor(value / TWO_32) | 0;
}

export function setInt64Big(value: bigint): void {
  int64.lo = Number(BigInt.asUintN(32, value));
  int64.hi = Number(BigInt.asIntN(32, value >> 32n));
}

export const INTEGER_OK = 0;
export const INTEGER_DECIMAL = 1;
export const INTEGER_TEXT = 2;
export const INTEGER_INVALID = 3;

/**
 * A cell's text as bytes the readers below take: each UTF-16 code unit below 0x80 as itself,
 * every other as 0xff, which no reader accepts (they accept ASCII only), so a reader answers
 * for the bytes what it answers for the UTF-8 of the text. Valid until the next call.
 */
export function textBytes(text: string): Uint8Array {
  const n = text.length;
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, scratch.length * 2));
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    scratch[i] = c < 0x80 ? c : 0xff;
  }
  return scratch;
}
let scratch = new Uint8Array(64);

/** Bytes [start, end), all ASCII (checked by the reader), as a string. */
function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
}

/** An `integer` cell (`[+-]?digits`, bytes [start, end)) into `int64`; beyond int64 the value is in `int64.big`. */
export function readInteger(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  const first = bytes[start]!;
  if (first === 45 || first === 43) i++;
  if (i >= end) return INTEGER_INVALID;
  let value = 0;
  for (let k = i; k < end; k++) {
    const d = bytes[k]! - 48;
    if (d < 0 || d > 9) return INTEGER_INVALID;
    value = value * 10 + d;
  }
  if (end - i <= 15) {
    setInt64(first === 45 ? -value : value);
    return INTEGER_OK;
  }
  const big = BigInt(ascii(bytes, start, end));
  int64.big = big;
  if (big >= INT64_MIN && big <= INT64_MAX) {
    setInt64Big(big);
    return INTEGER_OK;
  }
  return (big < 0n ? -big : big) < DECIMAL_LIMIT ? INTEGER_DECIMAL : INTEGER_TEXT;
}

function digitsEnd(bytes: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const c = bytes[i]!;
    if (c < 48 || c > 57) break;
    i++;
  }
  return i;
}

/** The powers of ten a double holds exactly. */
const EXACT_TENS = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** A `number` cell (bytes [start, end)) as a double, or undefined when it is not one; NaN, INF and -INF are the specials. */
export function readNumber(bytes: Uint8Array, start: number, end: number): number | undefined {
  const n = end - start;
  const first = bytes[start]!;
  if (n === 3 && first === 78 && bytes[start + 1] === 97 && bytes[start + 2] === 78) return NaN;
  if (n === 3 && first === 73 && bytes[start + 1] === 78 && bytes[start + 2] === 70) return Infinity;
  if (n === 4 && first === 45 && bytes[start + 1] === 73 && bytes[start + 2] === 78 && bytes[start + 3] === 70) return -Infinity;
  let i = start;
  if (first === 45 || first === 43) i++;
  // The digits as one integer while they fit 15 digits, and the power of ten they are scaled by.
  let mantissa = 0;
  let digits = 0;
  const intEnd = digitsEnd(bytes, i, end);
  for (let k = i; k < intEnd; k++) mantissa = mantissa * 10 + bytes[k]! - 48;
  digits = intEnd - i;
  let at = intEnd;
  let scale = 0;
  if (at < end && bytes[at] === 46) {
    const fracEnd = digitsEnd(bytes, at + 1, end);
    if (intEnd === i && fracEnd === at + 1) return undefined;
    for (let k = at + 1; k < fracEnd; k++) mantissa = mantissa * 10 + bytes[k]! - 48;
    digits += fracEnd - at - 1;
    scale = -(fracEnd - at - 1);
    at = fracEnd;
  } else if (intEnd === i) return undefined;
  let exact = digits <= 15;
  if (at < end && (bytes[at] === 101 || bytes[at] === 69)) {
    let k = at + 1;
    const s = bytes[k];
    if (s === 45 || s === 43) k++;
    const expEnd = digitsEnd(bytes, k, end);
    if (expEnd === k) return undefined;
    if (expEnd - k > 4) exact = false;
    else {
      let exponent = 0;
      for (let j = k; j < expEnd; j++) exponent = exponent * 10 + bytes[j]! - 48;
      scale += s === 45 ? -exponent : exponent;
    }
    at = expEnd;
  }
  if (at !== end) return undefined;
  // An exact integer of at most 15 digits times or over an exact power of ten is one correctly
  // rounded operation, the value Number gives (Clinger's fast path); any other reads through Number.
  if (exact && scale >= -22 && scale <= 22) {
    const magnitude = scale >= 0 ? mantissa * EXACT_TENS[scale]! : mantissa / EXACT_TENS[-scale]!;
    return first === 45 ? -magnitude : magnitude;
  }
  return Number(ascii(bytes, start, end));
}

function two(bytes: Uint8Array, at: number): number {
  const a = bytes[at]! - 48;
  const b = bytes[at + 1]! - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970 of the first of every month of years 0000–9999, and each month's length: a date is two lookups. */
const MONTH_START = new Int32Array(10000 * 12);
const MONTH_DAYS = new Uint8Array(10000 * 12);
for (let year = 0, at = 0, days = daysFromCivil(0, 1, 1); year < 10000; year++) {
  for (let month = 1; month <= 12; month++, at++) {
    MONTH_START[at] = days;
    MONTH_DAYS[at] = daysIn(year, month);
    days += MONTH_DAYS[at]!;
  }
}

/** `YYYY-MM-DD` at `at` (at least 10 bytes before the cell's end) as days since 1970, or NaN when it is not a valid date. */
function datePrefix(bytes: Uint8Array, at: number): number {
  if (bytes[at + 4] !== 45 || bytes[at + 7] !== 45) return NaN;
  const hi = two(bytes, at);
  const lo = two(bytes, at + 2);
  const month = two(bytes, at + 5);
  const day = two(bytes, at + 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return NaN;
  const index = (hi * 100 + lo) * 12 + month - 1;
  return day <= MONTH_DAYS[index]! ? MONTH_START[index]! + day - 1 : NaN;
}

/** A `date` cell (`YYYY-MM-DD`, bytes [start, end)) as days since 1970, or NaN. */
export function readDate(bytes: Uint8Array, start: number, end: number): number {
  return end - start === 10 ? datePrefix(bytes, start) : NaN;
}

/** What readClock read: microseconds since midnight and the zone, if any. */
const clock = { micros: 0, offsetSeconds: 0, zoned: false };

/** Reads `hh:mm:ss[.fraction][Z|±hh:mm]` at `at` (before `end`) into `clock`; returns where it ended, or -1. */
function readClock(bytes: Uint8Array, at: number, end: number): number {
  if (end - at < 8) return -1;
  const hour = two(bytes, at);
  const minute = two(bytes, at + 3);
  const second = two(bytes, at + 6);
  if (bytes[at + 2] !== 58 || bytes[at + 5] !== 58) return -1;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return -1;
  let i = at + 8;
  let fraction = 0;
  if (i < end && bytes[i] === 46) {
    const digitsTo = digitsEnd(bytes, i + 1, end);
    if (digitsTo === i + 1) return -1;
    for (let k = 0; k < 6; k++) fraction = fraction * 10 + (i + 1 + k < digitsTo ? bytes[i + 1 + k]! - 48 : 0);
    i = digitsTo;
  }
  clock.micros = ((hour * 60 + minute) * 60 + second) * 1e6 + fraction;
  clock.zoned = false;
  clock.offsetSeconds = 0;
  if (i >= end) return i;
  const z = bytes[i]!;
  if (z === 90 || z === 122) {
    clock.zoned = true;
    return i + 1;
  }
  if (z === 43 || z === 45) {
    if (end - i < 6) return -1;
    const zh = two(bytes, i + 1);
    const zm = two(bytes, i + 4);
    if (bytes[i + 3] !== 58 || zh < 0 || zh > 23 || zm < 0 || zm > 59) return -1;
    clock.zoned = true;
    clock.offsetSeconds = (z === 45 ? -1 : 1) * (zh * 3600 + zm * 60);
    return i + 6;
  }
  return i;
}

export const TIME_INVALID = -1;
export const TIME_ZONED = -2;

/** A `time` cell (bytes [start, end)) as microseconds since midnight; TIME_ZONED when it carries an offset (kept as text). */
export function readTime(bytes: Uint8Array, start: number, end: number): number {
  if (readClock(bytes, start, end) !== end) return TIME_INVALID;
  return clock.zoned ? TIME_ZONED : clock.micros;
}

/**
 * The fraction digits of a time (`at` = start) or datetime (`at` = start + 11, `zoned` as
 * readDatetime found it) cell [start, end) that readClock accepted, when the cell is already in
 * the form its instant reads back as (instant-text.ts): `T` between date and time, `Z` as the
 * only zone, no leap second, at most six fraction digits. -1 for any other spelling.
 */
export function instantDigits(bytes: Uint8Array, start: number, end: number, at: number, zoned: boolean): number {
  if (at > start && bytes[at - 1] !== 84) return -1;
  if (bytes[at + 6] === 54) return -1;
  let i = at + 8;
  let digits = 0;
  if (i < end && bytes[i] === 46) {
    digits = digitsEnd(bytes, i + 1, end) - i - 1;
    if (digits > 6) return -1;
    i += 1 + digits;
  }
  if (zoned) return i < end && bytes[i] === 90 && i + 1 === end ? digits : -1;
  return i === end ? digits : -1;
}

export const DATETIME_INVALID = -1;
export const DATETIME_LOCAL = 0;
export const DATETIME_ZONED = 1;

/** A `datetime` cell (RFC 3339, `T` or space; bytes [start, end)) as microseconds since 1970 UTC in `int64`, fractions past microseconds dropped. */
export function readDatetime(bytes: Uint8Array, start: number, end: number): number {
  if (end - start < 19) return DATETIME_INVALID;
  const days = datePrefix(bytes, start);
  const sep = bytes[start + 10];
  if (Number.isNaN(days) || (sep !== 84 && sep !== 116 && sep !== 32)) return DATETIME_INVALID;
  if (readClock(bytes, start + 11, end) !== end) return DATETIME_INVALID;
  const seconds = days * 86400 - clock.offsetSeconds;
  if (Math.abs(seconds) < 9e9) setInt64(seconds * 1e6 + clock.micros);
  else setInt64Big(BigInt(seconds) * 1_000_000n + BigInt(clock.micros));
  return clock.zoned ? DATETIME_ZONED : DATETIME_LOCAL;
}

/** Compares two strings in the order of their UTF-8 bytes (code point order), which `<` on UTF-16 is not. */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800 && cb >= 0xd800) {
      ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
      cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
    }
    return ca - cb;
  }
  return a.length - b.length;
}

/** A DECIMAL(38, 0) value as 16 big-endian two's complement bytes. */
export function decimalBytes(value: bigint, out: Uint8Array, at: number): void {
  let v = BigInt.asUintN(128, value);
  for (let i = 15; i >= 0; i--) {
    out[at + i] = Number(v & 0xffn);
    v >>= 8n;
  }
}
