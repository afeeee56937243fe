// AssemblyScript source of src/columnar/parquet/typed-kernel.wasm (`npm run build:kernel`;
// `npm test` checks the committed binary is this file's build). One column's typed cells of a
// batch read in one pass: integers, doubles, dates, times and datetimes parsed from their UTF-8
// bytes into the PLAIN values Parquet stores, with each row's definition level, where
// JavaScript made a call or more per cell (docs/performance.md, "The Parquet twin in workerd").
// It accepts what the readers of cell-values.ts accept and gives the same values; a cell it
// leaves to them (a double off the exact fast path, an integer past int64, a cell holding a
// doubled quote, any cell they refuse) ends the pass there, and typed-cells.ts reads that one
// cell with cell-values.ts and resumes after it. test/node/parquet.typed-kernel.test.ts holds
// the two to each other.
//
// Memory (laid out by typed-cells.ts): BOUNDS_AT; the calendar's tables, which the first parse
// fills (CALENDAR_AT, up to STAGE_AT); then a staged range of records: their `ends` (i32 each,
// cell indices in the batch), their cells (4 × i32 each, as src/csv/cell-batch.ts lays them out,
// starting at cell `kBase`), the bytes the cells point into (shifted by `shift`), a level per
// record (u8), the values (8 bytes each, 4 for dates) and their dictionary keys (f64 each). The
// kernel allocates nothing.

const BOUNDS_AT: usize = 0;
/** Days since 1970 of January 1st of years 0000–10000 (i32 each), then days before each month in a common and a leap year (i32 × 12 each), then their lengths (u8 × 12 each). */
const YEARS_AT: usize = 64;
const MONTHS_AT: usize = YEARS_AT + 4 * 10001;
const LENGTHS_AT: usize = MONTHS_AT + 4 * 24;
/** Where the staged records may begin (typed-cells.ts STAGE_AT). */
export const STAGE_AT: usize = (LENGTHS_AT + 24 + 63) & ~63;
let calendarReady = false;

const KIND_INT64: i32 = 0;
const KIND_DOUBLE: i32 = 1;
const KIND_DATE: i32 = 2;
const KIND_TIME: i32 = 3;
const KIND_TIMESTAMP: i32 = 4;

/** A timestamp column's zone while unknown (no value yet), local or UTC. */
const ZONE_UNKNOWN: i32 = -1;
const ZONE_LOCAL: i32 = 0;
const ZONE_UTC: i32 = 1;
/** No time or timestamp value in the chunk yet (int64-column.ts's NO_DIGITS_YET). */
const NO_DIGITS_YET: i32 = -2;

let endsAt: usize = 0;
let cellsAt: usize = 0;
let levelsAt: usize = 0;
let valuesAt: usize = 0;
let keysAt: usize = 0;

let unitsRead: i32 = 0;
let valuesRead: i32 = 0;
let zoneState: i32 = ZONE_UNKNOWN;
let digitsState: i32 = NO_DIGITS_YET;

/** Where the staged range's parts lie. */
export function configure(ends: usize, cells: usize, levels: usize, values: usize, keys: usize): void {
  endsAt = ends;
  cellsAt = cells;
  levelsAt = levels;
  valuesAt = values;
  keysAt = keys;
}

/** The UTF-16 length of the cells the last parse read as values. */
export function units(): i32 {
  return unitsRead;
}

/** The values the last parse wrote. */
export function count(): i32 {
  return valuesRead;
}

/** A timestamp column's zone after the last parse (ZONE_*). */
export function zone(): i32 {
  return zoneState;
}

/** A time or timestamp column's fraction digits after the last parse, as int64-column.ts keeps them. */
export function digits(): i32 {
  return digitsState;
}

@inline function digitsEnd(from: usize, end: usize): usize {
  let i = from;
  while (i < end && <u32>load<u8>(i) - 48 <= 9) i++;
  return i;
}

/** Two decimal digits at `at`, or -1. */
@inline function two(at: usize): i32 {
  const a = <i32>load<u8>(at) - 48;
  const b = <i32>load<u8>(at + 1) - 48;
  return <u32>a <= 9 && <u32>b <= 9 ? a * 10 + b : -1;
}

let int64Value: i64 = 0;
let doubleValue: f64 = 0;

/** cell-values.ts readInteger, up to int64: `[+-]?digits` into int64Value. */
function readInteger(s: usize, e: usize): bool {
  const first = load<u8>(s);
  let i = s;
  if (first == 45 || first == 43) i++;
  if (i >= e || e - i > 19) return false;
  let value: u64 = 0;
  for (let k = i; k < e; k++) {
    const d = <u32>load<u8>(k) - 48;
    if (d > 9) return false;
    value = value * 10 + d;
  }
  // 19 digits fit a u64; int64 holds up to 2^63 - 1, and -2^63.
  if (first == 45) {
    if (value > 0x8000000000000000) return false;
    int64Value = -(<i64>value);
  } else {
    if (value > 0x7fffffffffffffff) return false;
    int64Value = <i64>value;
  }
  return true;
}

/** 10^k for k ≤ 22, exact: each product is a power of ten a double holds. */
@inline function tenTo(k: i32): f64 {
  let p: f64 = 1;
  for (let j = 0; j < k; j++) p *= 10;
  return p;
}

/** cell-values.ts readNumber on its exact fast path (Clinger's), and NaN, INF, -INF; false for any other cell. */
function readNumber(s: usize, e: usize): bool {
  const n = e - s;
  const first = load<u8>(s);
  if (n == 3 && first == 78 && load<u8>(s + 1) == 97 && load<u8>(s + 2) == 78) {
    doubleValue = NaN;
    return true;
  }
  if (n == 3 && first == 73 && load<u8>(s + 1) == 78 && load<u8>(s + 2) == 70) {
    doubleValue = Infinity;
    return true;
  }
  if (n == 4 && first == 45 && load<u8>(s + 1) == 73 && load<u8>(s + 2) == 78 && load<u8>(s + 3) == 70) {
    doubleValue = -Infinity;
    return true;
  }
  let i = s;
  if (first == 45 || first == 43) i++;
  let mantissa: f64 = 0;
  const intEnd = digitsEnd(i, e);
  for (let k = i; k < intEnd; k++) mantissa = mantissa * 10 + <f64>(<i32>load<u8>(k) - 48);
  let digits = <i32>(intEnd - i);
  let at = intEnd;
  let scale: i32 = 0;
  if (at < e && load<u8>(at) == 46) {
    const fracEnd = digitsEnd(at + 1, e);
    if (intEnd == i && fracEnd == at + 1) return false;
    for (let k = at + 1; k < fracEnd; k++) mantissa = mantissa * 10 + <f64>(<i32>load<u8>(k) - 48);
    const fraction = <i32>(fracEnd - at - 1);
    digits += fraction;
    scale = -fraction;
    at = fracEnd;
  } else if (intEnd == i) return false;
  if (digits > 15) return false;
  if (at < e && (load<u8>(at) == 101 || load<u8>(at) == 69)) {
    let k = at + 1;
    const sign = k < e ? load<u8>(k) : 0;
    if (sign == 45 || sign == 43) k++;
    const expEnd = digitsEnd(k, e);
    if (expEnd == k || expEnd - k > 4) return false;
    let exponent: i32 = 0;
    for (let j = k; j < expEnd; j++) exponent = exponent * 10 + <i32>load<u8>(j) - 48;
    scale += sign == 45 ? -exponent : exponent;
    at = expEnd;
  }
  if (at != e || scale < -22 || scale > 22) return false;
  const magnitude = scale >= 0 ? mantissa * tenTo(scale) : mantissa / tenTo(-scale);
  doubleValue = first == 45 ? -magnitude : magnitude;
  return true;
}

function isLeap(year: i32): bool {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

/** Fills the calendar's tables: calendar.ts's daysFromCivil for every January 1st, counted forward from 0000-01-01. */
function fillCalendar(): void {
  let days: i32 = -719528;
  for (let year = 0; year <= 10000; year++) {
    store<i32>(YEARS_AT + (<usize>year << 2), days);
    days += isLeap(year) ? 366 : 365;
  }
  for (let leap = 0; leap < 2; leap++) {
    let before: i32 = 0;
    for (let month = 1; month <= 12; month++) {
      const length = month == 2 ? 28 + leap : month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
      store<i32>(MONTHS_AT + (<usize>(leap * 12 + month - 1) << 2), before);
      store<u8>(LENGTHS_AT + <usize>(leap * 12 + month - 1), length);
      before += length;
    }
  }
  calendarReady = true;
}

/** `YYYY-MM-DD` at `at` as days since 1970 (calendar.ts daysFromCivil), or i32.MIN_VALUE when it is no date. */
function datePrefix(at: usize): i32 {
  if (load<u8>(at + 4) != 45 || load<u8>(at + 7) != 45) return i32.MIN_VALUE;
  const hi = two(at);
  const lo = two(at + 2);
  const month = two(at + 5);
  const day = two(at + 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return i32.MIN_VALUE;
  const year = <usize>(hi * 100 + lo);
  const start = load<i32>(YEARS_AT + (year << 2));
  const index = <usize>((load<i32>(YEARS_AT + (year << 2), 4) - start - 365) * 12 + month - 1);
  if (day > <i32>load<u8>(LENGTHS_AT + index)) return i32.MIN_VALUE;
  return start + load<i32>(MONTHS_AT + (index << 2)) + day - 1;
}

let clockMicros: i64 = 0;
let clockOffset: i32 = 0;
let clockZoned = false;
/** What cell-values.ts instantDigits says of the clock read: its fraction digits when it is written as it reads back (no leap second, at most six digits, `Z` as its only zone), else -1. */
let clockDigits: i32 = 0;

/** cell-values.ts readClock: `hh:mm:ss[.fraction][Z|±hh:mm]` at `at`, up to `end` and no further; false when it is not one. */
function readClock(at: usize, end: usize): bool {
  if (end - at < 8) return false;
  const hour = two(at);
  const minute = two(at + 3);
  const second = two(at + 6);
  if (load<u8>(at + 2) != 58 || load<u8>(at + 5) != 58) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return false;
  let i = at + 8;
  let fraction: i32 = 0;
  let digits: i32 = 0;
  if (i < end && load<u8>(i) == 46) {
    i++;
    // The first six digits count, the rest are dropped.
    while (i < end) {
      const d = <u32>load<u8>(i) - 48;
      if (d > 9) break;
      if (digits < 6) fraction = fraction * 10 + <i32>d;
      digits++;
      i++;
    }
    if (digits == 0) return false;
    for (let k = digits; k < 6; k++) fraction *= 10;
  }
  clockMicros = <i64>((hour * 60 + minute) * 60 + second) * 1000000 + fraction;
  clockZoned = false;
  clockOffset = 0;
  clockDigits = second == 60 || digits > 6 ? -1 : digits;
  if (i == end) return true;
  const z = load<u8>(i);
  if (z == 90 || z == 122) {
    clockZoned = true;
    if (z == 122) clockDigits = -1;
    return i + 1 == end;
  }
  if (z == 43 || z == 45) {
    if (end - i != 6) return false;
    const zh = two(i + 1);
    const zm = two(i + 4);
    if (load<u8>(i + 3) != 58 || zh < 0 || zh > 23 || zm < 0 || zm > 59) return false;
    clockZoned = true;
    clockDigits = -1;
    clockOffset = (z == 45 ? -1 : 1) * (zh * 3600 + zm * 60);
    return true;
  }
  return false;
}

@inline function noteDigits(digits: i32): void {
  if (digits != digitsState) digitsState = digitsState == NO_DIGITS_YET ? digits : -1;
}

/** A `time` cell without an offset into int64Value (microseconds since midnight). */
function readTime(s: usize, e: usize): bool {
  if (!readClock(s, e) || clockZoned) return false;
  int64Value = clockMicros;
  noteDigits(clockDigits);
  return true;
}

/** A `datetime` cell of the column's zone (set by its first value while unknown) into int64Value (microseconds since 1970 UTC). */
function readDatetime(s: usize, e: usize): bool {
  if (e - s < 19) return false;
  const days = datePrefix(s);
  const sep = load<u8>(s + 10);
  if (days == i32.MIN_VALUE || (sep != 84 && sep != 116 && sep != 32)) return false;
  if (!readClock(s + 11, e)) return false;
  const zone = clockZoned ? ZONE_UTC : ZONE_LOCAL;
  if (zoneState == ZONE_UNKNOWN) zoneState = zone;
  else if (zoneState != zone) return false;
  int64Value = (<i64>days * 86400 - clockOffset) * 1000000 + clockMicros;
  noteDigits(sep == 84 ? clockDigits : -1);
  return true;
}

/**
 * Reads cell `c` of staged records [from, to) as `kind`: a level per record at levelsAt + record
 * (0 for an empty or absent cell), each value in turn from valuesAt. `kBase` is the batch index
 * of the first staged cell, `shift` what a cell's byte offset adds to lie in the staged bytes;
 * `zone` and `digits` are the column's so far. Returns the record it stopped at (a cell it leaves
 * to cell-values.ts), or `to`.
 */
export function parse(kind: i32, c: i32, from: i32, to: i32, kBase: i32, shift: i32, zone: i32, digits: i32): i32 {
  if (!calendarReady) fillCalendar();
  unitsRead = 0;
  valuesRead = 0;
  zoneState = zone;
  digitsState = digits;
  const stride: usize = kind == KIND_DATE ? 4 : 8;
  let out = valuesAt;
  for (let r = from; r < to; r++) {
    const k = (r == 0 ? kBase : load<i32>(endsAt + ((<usize>r - 1) << 2))) + c;
    if (k >= load<i32>(endsAt + (<usize>r << 2))) {
      store<u8>(levelsAt + r, 0);
      continue;
    }
    const cell = cellsAt + (<usize>(k - kBase) << 4);
    const start = load<i32>(cell);
    const end = load<i32>(cell, 4);
    if (start == end) {
      store<u8>(levelsAt + r, 0);
      continue;
    }
    if (start < 0) return r;
    const s = <usize>(start + shift);
    const e = <usize>(end + shift);
    if (kind == KIND_DOUBLE) {
      if (!readNumber(s, e)) return r;
      store<f64>(out, doubleValue);
    } else if (kind == KIND_DATE) {
      const days = e - s == 10 ? datePrefix(s) : i32.MIN_VALUE;
      if (days == i32.MIN_VALUE) return r;
      store<i32>(out, days);
    } else {
      if (!(kind == KIND_INT64 ? readInteger(s, e) : kind == KIND_TIME ? readTime(s, e) : readDatetime(s, e))) return r;
      store<i64>(out, int64Value);
    }
    out += stride;
    store<u8>(levelsAt + r, 1);
    unitsRead += load<i32>(cell, 12) - load<i32>(cell, 8);
    valuesRead++;
  }
  return to;
}

/**
 * Min and max of values [from, to) as `kind` stores them, at BOUNDS_AT and BOUNDS_AT + 8 (i64,
 * f64, or i32 for dates); NaN is left out. Returns 0 when no value counts (none, or only NaN).
 */
export function bounds(kind: i32, from: i32, to: i32): i32 {
  if (kind == KIND_DOUBLE) {
    let min = Infinity;
    let max = -Infinity;
    for (let at = valuesAt + (<usize>from << 3), end = valuesAt + (<usize>to << 3); at < end; at += 8) {
      const v = load<f64>(at);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    store<f64>(BOUNDS_AT, min);
    store<f64>(BOUNDS_AT, max, 8);
    return min <= max ? 1 : 0;
  }
  if (kind == KIND_DATE) {
    let min = i32.MAX_VALUE;
    let max = i32.MIN_VALUE;
    for (let at = valuesAt + (<usize>from << 2), end = valuesAt + (<usize>to << 2); at < end; at += 4) {
      const v = load<i32>(at);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    store<i32>(BOUNDS_AT, min);
    store<i32>(BOUNDS_AT, max, 8);
    return from < to ? 1 : 0;
  }
  let min = i64.MAX_VALUE;
  let max = i64.MIN_VALUE;
  for (let at = valuesAt + (<usize>from << 3), end = valuesAt + (<usize>to << 3); at < end; at += 8) {
    const v = load<i64>(at);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  store<i64>(BOUNDS_AT, min);
  store<i64>(BOUNDS_AT, max, 8);
  return from < to ? 1 : 0;
}

/** 2^53: an int64 from -2^53 up to this is a JavaScript number exactly. */
const SAFE: i64 = 9007199254740992;

/**
 * The dictionary keys of values [from, to) of the last parse, as int64-column.ts and
 * numeric-columns.ts key their dictionaries: the value itself (days for a date), at keysAt + 8 ×
 * value, as an f64, or as an i32 when `int` (which JavaScript reads without boxing). Up to the
 * first value whose key is not of that form (an int64 outside ±2^53 is keyed by its halves, a
 * double -0 as "-0"; with `int`, any key that is no int32), which is returned (or `to`).
 */
export function keys(kind: i32, from: i32, to: i32, int: bool): i32 {
  for (let v = from; v < to; v++) {
    const at = keysAt + (<usize>v << 3);
    if (kind == KIND_DATE) {
      const days = load<i32>(valuesAt + (<usize>v << 2));
      if (int) store<i32>(at, days);
      else store<f64>(at, <f64>days);
    } else if (kind == KIND_DOUBLE) {
      const value = load<f64>(valuesAt + (<usize>v << 3));
      if (value == 0 && load<i64>(valuesAt + (<usize>v << 3)) != 0) return v;
      if (int) {
        const whole = <i32>value;
        if (<f64>whole != value || (whole == 0 && load<i64>(valuesAt + (<usize>v << 3)) != 0)) return v;
        store<i32>(at, whole);
      } else store<f64>(at, value);
    } else {
      const value = load<i64>(valuesAt + (<usize>v << 3));
      if (int) {
        if (value != <i64><i32>value) return v;
        store<i32>(at, <i32>value);
      } else {
        if (value < -SAFE || value >= SAFE) return v;
        store<f64>(at, <f64>value);
      }
    }
  }
  return to;
}
