// Which docs/column-types.md types a cell's bytes satisfy, read straight from the upload's bytes so inference
// keeps pace with the CSV scan: every type is decided byte by byte, without making a string.
// Pure; reads a cell exactly as the string predicates of lexical.ts do (a test holds the two
// together).

export const INTEGER = 1;
export const NUMBER = 2;
export const BOOLEAN = 4;
export const DATE = 8;
export const DATETIME = 16;
/** Set beside DATETIME when the value is also in Table Schema's default datetime form. */
export const DEFAULT_DATETIME = 32;
/**
 * Digits with a leading zero (`01234`, `-007`): never INTEGER, so inference keeps such a column
 * text, but a field declared or stored as integer (or number) takes them, as Table Schema does.
 */
export const PADDED_INTEGER = 64;
/** A number whose integer part has a leading zero (`007.5`, `00e3`), and every PADDED_INTEGER. */
export const PADDED_NUMBER = 128;
/** The types inference chooses among; the PADDED bits only ever answer a field's check. */
export const ALL_TYPES = INTEGER | NUMBER | BOOLEAN | DATE | DATETIME;

const ZERO = 0x30;
const NINE = 0x39;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;

function isDigit(b: number): boolean {
  return b >= ZERO && b <= NINE;
}

/** The type bits of the non-empty cell `buf[from..to)` (see infer.ts for their order). */
export function cellClasses(buf: Uint8Array, from: number, to: number): number {
  const n = to - from;
  const first = buf[from]!;
  if (isDigit(first) || first === PLUS || first === MINUS || first === DOT) {
    const numeric = numberClasses(buf, from, to);
    if (numeric !== 0) return numeric;
    if (n === 10) return isDateBytes(buf, from) ? DATE : 0;
    if (n >= 19) return datetimeClasses(buf, from, to);
    return n === 4 && first === MINUS && buf[from + 1] === 0x49 && buf[from + 2] === 0x4e && buf[from + 3] === 0x46 ? NUMBER : 0; // -INF
  }
  if (n === 3) return (first === 0x4e && buf[from + 1] === 0x61 && buf[from + 2] === 0x4e) || (first === 0x49 && buf[from + 1] === 0x4e && buf[from + 2] === 0x46) ? NUMBER : 0; // NaN, INF
  if (n === 4 || n === 5) return booleanWord(buf, from, to) !== null ? BOOLEAN : 0;
  return 0;
}

/**
 * `true` or `false` in any case: which one, with the bit pattern of its upper-case letters
 * (bit i set when letter i is upper case), so inference can name the spellings it saw.
 */
export function booleanWord(buf: Uint8Array, from: number, to: number): { value: boolean; spelling: number } | null {
  const word = to - from === 4 ? "true" : to - from === 5 ? "false" : null;
  if (word === null) return null;
  let spelling = 0;
  for (let i = 0; i < word.length; i++) {
    const b = buf[from + i]!;
    const lower = b | 0x20;
    if (lower !== word.charCodeAt(i)) return null;
    if (b !== lower) spelling |= 1 << i;
  }
  return { value: word === "true", spelling };
}

/**
 * `[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?`: INTEGER|NUMBER, NUMBER, or with a leading zero
 * PADDED_INTEGER|PADDED_NUMBER, PADDED_NUMBER; else 0.
 */
function numberClasses(buf: Uint8Array, from: number, to: number): number {
  let i = from;
  const first = buf[i]!;
  if (first === PLUS || first === MINUS) i++;
  const intStart = i;
  while (i < to && isDigit(buf[i]!)) i++;
  const intDigits = i - intStart;
  // A leading zero (`007`, `-01`, `00.5`) marks an identifier; `0`, `0.5` and `0e3` are numbers.
  const padded = intDigits > 1 && buf[intStart] === ZERO;
  if (i === to) return intDigits === 0 ? 0 : padded ? PADDED_INTEGER | PADDED_NUMBER : INTEGER | NUMBER;
  let fracDigits = 0;
  if (buf[i] === DOT) {
    i++;
    const fracStart = i;
    while (i < to && isDigit(buf[i]!)) i++;
    fracDigits = i - fracStart;
  }
  if (intDigits === 0 && fracDigits === 0) return 0;
  if (i < to && (buf[i] === 0x65 || buf[i] === 0x45)) {
    i++;
    if (i < to && (buf[i] === PLUS || buf[i] === MINUS)) i++;
    const expStart = i;
    while (i < to && isDigit(buf[i]!)) i++;
    if (i === expStart) return 0;
  }
  return i !== to ? 0 : padded ? PADDED_NUMBER : NUMBER;
}

function twoDigits(buf: Uint8Array, at: number): number {
  const a = buf[at]! - ZERO;
  const b = buf[at + 1]! - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** `YYYY-MM-DD` naming a day of the proleptic Gregorian calendar. */
function isDateBytes(buf: Uint8Array, at: number): boolean {
  if (buf[at + 4] !== MINUS || buf[at + 7] !== MINUS) return false;
  const hi = twoDigits(buf, at);
  const lo = twoDigits(buf, at + 2);
  const month = twoDigits(buf, at + 5);
  const day = twoDigits(buf, at + 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return false;
  const year = hi * 100 + lo;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}

/**
 * RFC 3339 as docs/column-types.md reads it: `YYYY-MM-DD[T ]hh:mm:ss[.fraction][Z|±hh:mm]`, `T` and `Z` in
 * either case; DEFAULT_DATETIME too when in Table Schema's default form (`T`, `Z`, upper case).
 */
function datetimeClasses(buf: Uint8Array, from: number, to: number): number {
  const sep = buf[from + 10];
  if (sep !== 0x54 && sep !== 0x74 && sep !== 0x20) return 0;
  if (!isDateBytes(buf, from)) return 0;
  if (buf[from + 13] !== COLON || buf[from + 16] !== COLON) return 0;
  const hour = twoDigits(buf, from + 11);
  const minute = twoDigits(buf, from + 14);
  const second = twoDigits(buf, from + 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return 0;
  let i = from + 19;
  if (i < to && buf[i] === DOT) {
    const digits = ++i;
    while (i < to && isDigit(buf[i]!)) i++;
    if (i === digits) return 0;
  }
  if (i === to) return DATETIME;
  const zone = buf[i]!;
  if (zone === 0x5a || zone === 0x7a) {
    if (i + 1 !== to) return 0;
    return zone === 0x5a && sep === 0x54 ? DATETIME | DEFAULT_DATETIME : DATETIME;
  }
  if ((zone !== PLUS && zone !== MINUS) || i + 6 !== to || buf[i + 3] !== COLON) return 0;
  const zoneHour = twoDigits(buf, i + 1);
  const zoneMinute = twoDigits(buf, i + 4);
  return zoneHour >= 0 && zoneHour <= 23 && zoneMinute >= 0 && zoneMinute <= 59 ? DATETIME : 0;
}
