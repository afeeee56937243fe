// AssemblyScript source of src/csv/record-kernel.wasm (`npm run build:kernel`; `npm test` checks
// the committed binary is this file's build). It exists because the CSV scan and the column
// typing are most of a stored-as-sent ingest's time (docs/performance.md). Here content is
// scanned 16 bytes at a time (WebAssembly SIMD) and cells are typed in the same pass: in
// workerd, 25 MB of the bench CSV took 40 ms, against 130 ms for the scanner and typer in
// JavaScript.
//
// It does one narrow job: from a record start after the first record, take whole data records
// (RFC 4180 §2 with the docs/api.md#writes rules, as src/csv/scanner.ts reads them) and type their cells
// (docs/column-types.md, as src/schema/cell-classes.ts and infer.ts do), and stop before the first record it
// cannot take exactly as the scanner would: a blank line, a NUL, invalid UTF-8, a wrong field
// count, a field over the size limit, a cell a checked column refuses, anything after a closing
// quote, a lone CR, or a record the buffer ends inside. The scanner then reads that record
// itself, so every error and every edge case keeps one implementation.
//
// Memory (laid out by record-kernel.ts): per column, at `columnsAt`, seven arrays
// of `columns` entries: mode, wanted bits (u8), remaining types, seen, default datetime (u8),
// true spellings, false spellings (i32, 4-byte aligned); then the input bytes, followed by 16
// bytes the kernel may read but never takes (unquotedStop).

import { utf8Sequence } from "./utf8-sequence.as";

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const ZERO = 0x30;
const NINE = 0x39;
const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;

// Type bits: src/schema/cell-classes.ts.
const INTEGER = 1;
const NUMBER = 2;
const BOOLEAN = 4;
const DATE = 8;
const DATETIME = 16;
const DEFAULT_DATETIME = 32;
const PADDED_INTEGER = 64;
const PADDED_NUMBER = 128;

// Column modes: what src/schema/column-typer.ts does with a cell.
const SKIP = 0;
const INFER = 1;
const CHECK = 2;

let columns = 0;
let maxFieldBytes = 0;
let modeAt = 0;
let wantAt = 0;
let remainingAt = 0;
let seenAt = 0;
let defaultAt = 0;
let trueAt = 0;
let falseAt = 0;
let taken = 0;

/** Sets the table's shape; `at` is where the seven column arrays start (4-byte aligned). */
export function configure(count: i32, fieldLimit: i32, at: i32): void {
  columns = count;
  maxFieldBytes = fieldLimit;
  modeAt = at;
  wantAt = at + count;
  remainingAt = at + 2 * count;
  seenAt = at + 3 * count;
  defaultAt = at + 4 * count;
  trueAt = (at + 5 * count + 3) & ~3;
  falseAt = trueAt + 4 * count;
}

/** Records taken by the last `run`. */
export function records(): i32 {
  return taken;
}

/**
 * Takes whole records from `from` (a record start) up to `end`; returns the offset just after
 * the last one taken (its LF), or `from` when none.
 */
export function run(from: i32, end: i32): i32 {
  taken = 0;
  let last = from;
  let p = from;
  while (p < end) {
    const next = record(p, end);
    if (next < 0) break;
    taken++;
    last = next;
    p = next;
  }
  return last;
}

/** One record from `p`: the offset after its line end, or -1 when it is not taken. */
function record(p: i32, end: i32): i32 {
  let b = <i32>load<u8>(p);
  if (b == LF || b == CR) return -1; // a blank line: the scanner's BlankRun decides
  let col = 0;
  let q = p;
  while (true) {
    if (q >= end) return -1;
    const fieldStart = q;
    let from = q;
    let to = q;
    let escaped = false;
    b = <i32>load<u8>(q);
    if (b == QUOTE) {
      q++;
      from = q;
      while (true) {
        q = quotedStop(q, end);
        if (q >= end) return -1;
        const c = <i32>load<u8>(q);
        if (c == QUOTE) {
          if (q + 1 >= end) return -1;
          if (<i32>load<u8>(q + 1) == QUOTE) {
            escaped = true;
            q += 2;
            continue;
          }
          to = q;
          q++;
          break;
        }
        if (c == 0) return -1;
        q = utf8Sequence(q, end);
        if (q < 0) return -1;
      }
      if (q >= end) return -1;
      b = <i32>load<u8>(q);
      if (b != COMMA && b != LF && b != CR) return -1;
    } else {
      while (true) {
        q = unquotedStop(q, end);
        if (q >= end) return -1;
        const c = <i32>load<u8>(q);
        if (c == COMMA || c == LF || c == CR) break;
        if (c == 0) return -1;
        q = utf8Sequence(q, end);
        if (q < 0) return -1;
      }
      to = q;
      b = <i32>load<u8>(q);
    }
    // `q` is at the delimiter `b` that ends the field.
    if (q - fieldStart > maxFieldBytes) return -1;
    if (col >= columns) return -1;
    if (!typeCell(col, from, to, escaped)) return -1;
    col++;
    q++;
    if (b == COMMA) continue;
    if (b == CR) {
      if (q >= end || <i32>load<u8>(q) != LF) return -1;
      q++;
    }
    return col == columns ? q : -1;
  }
}

/**
 * The first byte at or after `q` that ends a run of unquoted content: a comma, LF, CR, NUL or a
 * byte >= 0x80 (for the UTF-8 check); 16 bytes at a time. It may read up to 15 bytes past
 * `end` (record-kernel.ts keeps them in memory) and then answers `end` or more.
 */
function unquotedStop(q: i32, end: i32): i32 {
  while (q < end) {
    const v = v128.load(q);
    const stops = v128.or(
      v128.or(i8x16.eq(v, i8x16.splat(<i8>COMMA)), i8x16.eq(v, i8x16.splat(<i8>LF))),
      v128.or(i8x16.eq(v, i8x16.splat(<i8>CR)), i8x16.le_u(v, i8x16.splat(0))),
    );
    const mask = i8x16.bitmask(v128.or(stops, i8x16.lt_s(v, i8x16.splat(0))));
    if (mask != 0) return q + ctz(mask);
    q += 16;
  }
  return end;
}

/** The same for quoted content: a quote, NUL or a byte >= 0x80. */
function quotedStop(q: i32, end: i32): i32 {
  while (q < end) {
    const v = v128.load(q);
    const stops = v128.or(i8x16.eq(v, i8x16.splat(<i8>QUOTE)), i8x16.le_u(v, i8x16.splat(0)));
    const mask = i8x16.bitmask(v128.or(stops, i8x16.lt_s(v, i8x16.splat(0))));
    if (mask != 0) return q + ctz(mask);
    q += 16;
  }
  return end;
}

/**
 * The column typer's look at one cell (content `[from, to)`, `escaped` when it held a doubled
 * quote): false when a checked column refuses it. Only the empty cell is missing here.
 */
function typeCell(col: i32, from: i32, to: i32, escaped: bool): bool {
  const mode = <i32>load<u8>(modeAt + col);
  if (mode == SKIP) return true;
  const remaining = <i32>load<u8>(remainingAt + col);
  if (mode == INFER && remaining == 0) return true; // already a string: not looked at
  if (from == to && !escaped) return true; // missing
  if (mode == CHECK) {
    return !escaped && (classes(from, to) & <i32>load<u8>(wantAt + col)) != 0;
  }
  store<u8>(seenAt + col, 1);
  // A cell with a quote in it is of no type but string.
  const found = escaped ? 0 : classes(from, to);
  const now = remaining & found;
  store<u8>(remainingAt + col, now);
  if ((now & DATETIME) != 0 && (found & DEFAULT_DATETIME) == 0) store<u8>(defaultAt + col, 0);
  if ((now & BOOLEAN) != 0) {
    const spelling = booleanSpelling(from, to);
    const at = (to - from == 4 ? trueAt : falseAt) + 4 * col;
    store<i32>(at, load<i32>(at) | (1 << spelling));
  }
  return true;
}

function isDigit(b: i32): bool {
  return b >= ZERO && b <= NINE;
}

/** cellClasses of src/schema/cell-classes.ts, for a non-empty cell. */
function classes(from: i32, to: i32): i32 {
  const n = to - from;
  const first = <i32>load<u8>(from);
  if (isDigit(first) || first == PLUS || first == MINUS || first == DOT) {
    const numeric = numberClasses(from, to);
    if (numeric != 0) return numeric;
    if (n == 10) return isDate(from) ? DATE : 0;
    if (n >= 19) return datetimeClasses(from, to);
    return n == 4 && first == MINUS && load<u8>(from + 1) == 0x49 && load<u8>(from + 2) == 0x4e && load<u8>(from + 3) == 0x46 ? NUMBER : 0;
  }
  if (n == 3) {
    const a = <i32>load<u8>(from + 1);
    const c = <i32>load<u8>(from + 2);
    return (first == 0x4e && a == 0x61 && c == 0x4e) || (first == 0x49 && a == 0x4e && c == 0x46) ? NUMBER : 0;
  }
  if (n == 4 || n == 5) return booleanSpelling(from, to) >= 0 ? BOOLEAN : 0;
  return 0;
}

/** `true` or `false` in any case: the bits of its upper-case letters, or -1. */
function booleanSpelling(from: i32, to: i32): i32 {
  const n = to - from;
  let spelling = 0;
  for (let i = 0; i < n; i++) {
    const b = <i32>load<u8>(from + i);
    const lower = b | 0x20;
    if (lower != booleanLetter(n, i)) return -1;
    if (b != lower) spelling |= 1 << i;
  }
  return spelling;
}

/** Letter `i` of "true" (n = 4) or "false" (n = 5). */
function booleanLetter(n: i32, i: i32): i32 {
  if (n == 4) return i == 0 ? 0x74 : i == 1 ? 0x72 : i == 2 ? 0x75 : 0x65;
  return i == 0 ? 0x66 : i == 1 ? 0x61 : i == 2 ? 0x6c : i == 3 ? 0x73 : 0x65;
}

function numberClasses(from: i32, to: i32): i32 {
  let i = from;
  const first = <i32>load<u8>(i);
  if (first == PLUS || first == MINUS) i++;
  const intStart = i;
  while (i < to && isDigit(<i32>load<u8>(i))) i++;
  const intDigits = i - intStart;
  const padded = intDigits > 1 && <i32>load<u8>(intStart) == ZERO;
  if (i == to) return intDigits == 0 ? 0 : padded ? PADDED_INTEGER | PADDED_NUMBER : INTEGER | NUMBER;
  let fracDigits = 0;
  if (<i32>load<u8>(i) == DOT) {
    i++;
    const fracStart = i;
    while (i < to && isDigit(<i32>load<u8>(i))) i++;
    fracDigits = i - fracStart;
  }
  if (intDigits == 0 && fracDigits == 0) return 0;
  if (i < to) {
    const e = <i32>load<u8>(i);
    if (e == 0x65 || e == 0x45) {
      i++;
      if (i < to) {
        const s = <i32>load<u8>(i);
        if (s == PLUS || s == MINUS) i++;
      }
      const expStart = i;
      while (i < to && isDigit(<i32>load<u8>(i))) i++;
      if (i == expStart) return 0;
    }
  }
  return i != to ? 0 : padded ? PADDED_NUMBER : NUMBER;
}

function twoDigits(at: i32): i32 {
  const a = <i32>load<u8>(at) - ZERO;
  const b = <i32>load<u8>(at + 1) - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function isDate(at: i32): bool {
  if (<i32>load<u8>(at + 4) != MINUS || <i32>load<u8>(at + 7) != MINUS) return false;
  const hi = twoDigits(at);
  const lo = twoDigits(at + 2);
  const month = twoDigits(at + 5);
  const day = twoDigits(at + 8);
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return false;
  const year = hi * 100 + lo;
  const leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  const days = month == 2 ? (leap ? 29 : 28) : month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  return day <= days;
}

function datetimeClasses(from: i32, to: i32): i32 {
  const sep = <i32>load<u8>(from + 10);
  if (sep != 0x54 && sep != 0x74 && sep != 0x20) return 0;
  if (!isDate(from)) return 0;
  if (<i32>load<u8>(from + 13) != COLON || <i32>load<u8>(from + 16) != COLON) return 0;
  const hour = twoDigits(from + 11);
  const minute = twoDigits(from + 14);
  const second = twoDigits(from + 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return 0;
  let i = from + 19;
  if (i < to && <i32>load<u8>(i) == DOT) {
    i++;
    const digits = i;
    while (i < to && isDigit(<i32>load<u8>(i))) i++;
    if (i == digits) return 0;
  }
  if (i == to) return DATETIME;
  const zone = <i32>load<u8>(i);
  if (zone == 0x5a || zone == 0x7a) {
    if (i + 1 != to) return 0;
    return zone == 0x5a && sep == 0x54 ? DATETIME | DEFAULT_DATETIME : DATETIME;
  }
  if ((zone != PLUS && zone != MINUS) || i + 6 != to || <i32>load<u8>(i + 3) != COLON) return 0;
  const zoneHour = twoDigits(i + 1);
  const zoneMinute = twoDigits(i + 4);
  return zoneHour >= 0 && zoneHour <= 23 && zoneMinute >= 0 && zoneMinute <= 59 ? DATETIME : 0;
}
