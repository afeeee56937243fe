// Exact readers of the lexical forms castCell accepts (src/schema/lexical.ts), straight to the
// values Parquet stores: int64 halves, days since 1970, microseconds. They replace castCell on
// the hot path (no regex, no object per cell) and agree with it on every cell they accept; a
// field with a pattern format or group characters goes through castCell instead (value-readers.ts).
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

/** An `integer` cell (`[+-]?digits`) into `int64`; beyond int64 the value is in `int64.big`. */
export function readInteger(text: string): number {
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) i = 1;
  if (i >= n) return INTEGER_INVALID;
  let value = 0;
  for (let k = i; k < n; k++) {
    const d = text.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return INTEGER_INVALID;
    value = value * 10 + d;
  }
  if (n - i <= 15) {
    setInt64(first === 45 ? -value : value);
    return INTEGER_OK;
  }
  const big = BigInt(text);
  int64.big = big;
  if (big >= INT64_MIN && big <= INT64_MAX) {
    setInt64Big(big);
    return INTEGER_OK;
  }
  return (big < 0n ? -big : big) < DECIMAL_LIMIT ? INTEGER_DECIMAL : INTEGER_TEXT;
}

function digitsEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  return i;
}

/** A `number` cell as a double, or undefined when it is not one; NaN, INF and -INF are the specials. */
export function readNumber(text: string): number | undefined {
  if (text === "NaN") return NaN;
  if (text === "INF") return Infinity;
  if (text === "-INF") return -Infinity;
  const n = text.length;
  let i = 0;
  const first = text.charCodeAt(0);
  if (first === 45 || first === 43) i = 1;
  const intEnd = digitsEnd(text, i);
  let end = intEnd;
  if (text.charCodeAt(end) === 46) {
    const fracEnd = digitsEnd(text, end + 1);
    if (intEnd === i && fracEnd === end + 1) return undefined;
    end = fracEnd;
  } else if (intEnd === i) return undefined;
  const e = text.charCodeAt(end);
  if (e === 101 || e === 69) {
    let k = end + 1;
    const s = text.charCodeAt(k);
    if (s === 45 || s === 43) k++;
    const expEnd = digitsEnd(text, k);
    if (expEnd === k) return undefined;
    end = expEnd;
  }
  return end === n ? Number(text) : undefined;
}

function two(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
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

/** `YYYY-MM-DD` at the start of `text` as days since 1970, or NaN when it is not a valid date. */
function datePrefix(text: string): number {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return NaN;
  const hi = two(text, 0);
  const lo = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return NaN;
  const at = (hi * 100 + lo) * 12 + month - 1;
  return day <= MONTH_DAYS[at]! ? MONTH_START[at]! + day - 1 : NaN;
}

/** A `date` cell (`YYYY-MM-DD`) as days since 1970, or NaN. */
export function readDate(text: string): number {
  return text.length === 10 ? datePrefix(text) : NaN;
}

/** What readClock read: microseconds since midnight and the zone, if any. */
const clock = { micros: 0, offsetSeconds: 0, zoned: false };

/** Reads `hh:mm:ss[.fraction][Z|±hh:mm]` at `at` into `clock`; returns where it ended, or -1. */
function readClock(text: string, at: number): number {
  const hour = two(text, at);
  const minute = two(text, at + 3);
  const second = two(text, at + 6);
  if (text.charCodeAt(at + 2) !== 58 || text.charCodeAt(at + 5) !== 58) return -1;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return -1;
  let i = at + 8;
  let fraction = 0;
  if (text.charCodeAt(i) === 46) {
    const end = digitsEnd(text, i + 1);
    if (end === i + 1) return -1;
    for (let k = 0; k < 6; k++) fraction = fraction * 10 + (i + 1 + k < end ? text.charCodeAt(i + 1 + k) - 48 : 0);
    i = end;
  }
  clock.micros = ((hour * 60 + minute) * 60 + second) * 1e6 + fraction;
  clock.zoned = false;
  clock.offsetSeconds = 0;
  const z = text.charCodeAt(i);
  if (z === 90 || z === 122) {
    clock.zoned = true;
    return i + 1;
  }
  if (z === 43 || z === 45) {
    const zh = two(text, i + 1);
    const zm = two(text, i + 4);
    if (text.charCodeAt(i + 3) !== 58 || zh < 0 || zh > 23 || zm < 0 || zm > 59) return -1;
    clock.zoned = true;
    clock.offsetSeconds = (z === 45 ? -1 : 1) * (zh * 3600 + zm * 60);
    return i + 6;
  }
  return i;
}

export const TIME_INVALID = -1;
export const TIME_ZONED = -2;

/** A `time` cell as microseconds since midnight; TIME_ZONED when it carries an offset (kept as text). */
export function readTime(text: string): number {
  const end = readClock(text, 0);
  if (end !== text.length) return TIME_INVALID;
  return clock.zoned ? TIME_ZONED : clock.micros;
}

/**
 * The fraction digits of a time (`at` 0) or datetime (`at` 11, `zoned` as readDatetime found it)
 * cell that readClock accepted, when the cell is already in the form its instant reads back as
 * (instant-text.ts): `T` between date and time, `Z` as the only zone, no leap second, at most
 * six fraction digits. -1 for any other spelling.
 */
export function instantDigits(text: string, at: number, zoned: boolean): number {
  if (at > 0 && text.charCodeAt(at - 1) !== 84) return -1;
  if (text.charCodeAt(at + 6) === 54) return -1;
  let i = at + 8;
  let digits = 0;
  if (text.charCodeAt(i) === 46) {
    digits = digitsEnd(text, i + 1) - i - 1;
    if (digits > 6) return -1;
    i += 1 + digits;
  }
  if (zoned) return text.charCodeAt(i) === 90 && i + 1 === text.length ? digits : -1;
  return i === text.length ? digits : -1;
}

export const DATETIME_INVALID = -1;
export const DATETIME_LOCAL = 0;
export const DATETIME_ZONED = 1;

/** A `datetime` cell (RFC 3339, `T` or space) as microseconds since 1970 UTC in `int64`, fractions past microseconds dropped. */
export function readDatetime(text: string): number {
  const days = datePrefix(text);
  const sep = text.charCodeAt(10);
  if (Number.isNaN(days) || (sep !== 84 && sep !== 116 && sep !== 32)) return DATETIME_INVALID;
  if (readClock(text, 11) !== text.length) return DATETIME_INVALID;
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
