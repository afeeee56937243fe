// AssemblyScript source of src/csv/cell-kernel.wasm (`npm run build:kernel`; `npm test` checks
// the committed binary is this file's build). It finds the cells of stored CSV bytes for the
// Parquet build (src/csv/cell-decoder.ts), so no JavaScript string is made per cell: the part
// writer reads numbers, dates and text straight from the bytes (docs/performance.md, "The
// Parquet twin in workerd"). It reads text as records.ts does (RFC 4180 §2 with the
// docs/api.md#writes rules: CRLF or LF ends a record, a quote is literal inside an unquoted
// field, a blank line is a record of one empty cell unless only blank lines follow) and checks
// the bytes are UTF-8 as TextDecoder's fatal mode does (RFC 3629 §4).
//
// Memory (laid out by cell-decoder.ts): the cells at `cellsAt`, four i32 each: the content's
// byte start (bit 31 set when the cell held a doubled quote, which the content still holds
// doubled), byte end, and its UTF-16 start and end in the text of bytes [from, return value);
// then at `recordsAt` one i32 per record: the index after its last cell; then the input.

import { UTF8_INVALID, utf8Sequence } from "./utf8-sequence.as";

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** What stopped a call (`status`). */
const DONE = 0; // every whole record up to `end` taken
const FULL = 1; // the cell arrays are full: call again from the return value
const LONE_CR = 2;
const AFTER_QUOTE = 3;
const UNBALANCED = 4;
const INVALID_UTF8 = 5;

let cellsAt = 0;
let recordsAt = 0;
let capacity = 0;
let cellCount = 0;
let recordCount = 0;
let status = DONE;
/** Blank lines taken but not yet counted as records: only a record after them makes them records. */
let pending = 0;
/** Records completed since `reset`, blank ones included, for an error's record number. */
let total = 0;
/** 1 when the error is a lone CR ending a record, which records.ts counts before it fails. */
let counted = 0;
/** Bytes minus UTF-16 code units so far in this call. */
let shrink = 0;

/** Where the cell and record arrays are, and how many cells they hold. */
export function configure(cells: i32, records: i32, cellCapacity: i32): void {
  cellsAt = cells;
  recordsAt = records;
  capacity = cellCapacity;
}

/** Starts a new text. */
export function reset(): void {
  pending = 0;
  total = 0;
}

export function cells(): i32 {
  return cellCount;
}

export function records(): i32 {
  return recordCount;
}

export function stopped(): i32 {
  return status;
}

/** The record an error is in, counted from 1 since `reset`, as records.ts counts it. */
export function errorRecord(): i32 {
  return total + pending + 1 + counted;
}

/** Drops the blank lines still pending: the end of the text, where they are not records. */
export function finish(): void {
  pending = 0;
}

/**
 * Takes the whole records in [from, end) (`from` is a record start; `last`: the text ends at
 * `end`, so its last record needs no line end). Returns the offset after the last record or
 * blank line taken; `stopped()` says why it stopped there.
 */
export function run(from: i32, end: i32, last: bool): i32 {
  cellCount = 0;
  recordCount = 0;
  status = DONE;
  counted = 0;
  shrink = 0;
  let p = from;
  let taken = from;
  while (p < end) {
    const b = <i32>load<u8>(p);
    if (b == LF || b == CR) {
      if (b == CR) {
        if (p + 1 >= end) {
          if (last) status = LONE_CR;
          break;
        }
        if (<i32>load<u8>(p + 1) != LF) {
          status = LONE_CR;
          break;
        }
        p++;
      }
      p++;
      pending++;
      taken = p;
      continue;
    }
    const cellsBefore = cellCount;
    const recordsBefore = recordCount;
    const shrinkBefore = shrink;
    // The blank lines before this record are records of one empty cell.
    let fits = true;
    for (let i = 0; i < pending; i++) {
      if (!emit(p, p, false, from)) {
        fits = false;
        break;
      }
      store<i32>(recordsAt + 4 * recordCount++, cellCount);
    }
    const next = fits ? record(p, end, last, from) : -1;
    if (next < 0) {
      cellCount = cellsBefore;
      recordCount = recordsBefore;
      shrink = shrinkBefore;
      if (!fits) status = FULL;
      break;
    }
    total += pending + 1;
    pending = 0;
    store<i32>(recordsAt + 4 * recordCount++, cellCount);
    p = next;
    taken = p;
  }
  return taken;
}

/** Adds a cell; false when the arrays are full (status FULL). */
function emit(start: i32, to: i32, escaped: bool, from: i32): bool {
  if (cellCount >= capacity) {
    status = FULL;
    return false;
  }
  const at = cellsAt + 16 * cellCount++;
  store<i32>(at, escaped ? start | (1 << 31) : start);
  store<i32>(at + 4, to);
  store<i32>(at + 8, start - from - shrink);
  store<i32>(at + 12, start - from - shrink);
  return true;
}

/** Ends the cell `emit` began: its UTF-16 end, once the bytes inside it are counted. */
function emitted(to: i32, from: i32): void {
  store<i32>(cellsAt + 16 * (cellCount - 1) + 12, to - from - shrink);
}

/** One record from `p`: the offset after its line end, or -1 (incomplete, full or an error, in `status`). */
function record(p: i32, end: i32, last: bool, from: i32): i32 {
  let q = p;
  while (true) {
    if (q >= end) {
      // After a comma at the end of the text: one more, empty cell ends the record.
      if (!last) return -1;
      if (!emit(q, q, false, from)) return -1;
      emitted(q, from);
      return end;
    }
    let b = <i32>load<u8>(q);
    if (b == QUOTE) {
      q++;
      const start = q;
      let escaped = false;
      const startShrink = shrink;
      while (true) {
        q = quotedStop(q, end);
        if (q >= end) {
          if (last) status = UNBALANCED;
          return -1;
        }
        if (<i32>load<u8>(q) == QUOTE) {
          if (q + 1 < end && <i32>load<u8>(q + 1) == QUOTE) {
            escaped = true;
            q += 2;
            continue;
          }
          if (q + 1 >= end && !last) return -1;
          break;
        }
        q = utf8(q, end, last);
        if (q < 0) return -1;
      }
      // `q` is at the closing quote.
      const saved = shrink;
      shrink = startShrink;
      if (!emit(start, q, escaped, from)) return -1;
      shrink = saved;
      emitted(q, from);
      q++;
      if (q >= end) return last ? end : -1;
      b = <i32>load<u8>(q);
      if (b != COMMA && b != LF && b != CR) {
        status = AFTER_QUOTE;
        return -1;
      }
    } else {
      const start = q;
      const startShrink = shrink;
      while (true) {
        q = unquotedStop(q, end);
        if (q >= end) break;
        const c = <i32>load<u8>(q);
        if (c == COMMA || c == LF || c == CR) break;
        q = utf8(q, end, last);
        if (q < 0) return -1;
      }
      if (q >= end && !last) return -1;
      const saved = shrink;
      shrink = startShrink;
      if (!emit(start, q, false, from)) return -1;
      shrink = saved;
      emitted(q, from);
      if (q >= end) return end;
      b = <i32>load<u8>(q);
    }
    // `q` is at the delimiter `b` that ends the cell.
    q++;
    if (b == COMMA) continue;
    if (b == CR) {
      if (q >= end) {
        if (last) status = LONE_CR;
        counted = 1;
        return -1;
      }
      if (<i32>load<u8>(q) != LF) {
        status = LONE_CR;
        counted = 1;
        return -1;
      }
      q++;
    }
    return q;
  }
}

/**
 * The first byte at or after `q` that ends a run of unquoted content: a comma, LF, CR or a byte
 * >= 0x80 (for the UTF-8 check); 16 bytes at a time. It may read up to 15 bytes past `end`
 * (cell-decoder.ts keeps them in memory) and then answers `end` or more.
 */
function unquotedStop(q: i32, end: i32): i32 {
  while (q < end) {
    const v = v128.load(q);
    const stops = v128.or(
      v128.or(i8x16.eq(v, i8x16.splat(<i8>COMMA)), i8x16.eq(v, i8x16.splat(<i8>LF))),
      v128.or(i8x16.eq(v, i8x16.splat(<i8>CR)), i8x16.lt_s(v, i8x16.splat(0))),
    );
    const mask = i8x16.bitmask(stops);
    if (mask != 0) return min(q + ctz(mask), end);
    q += 16;
  }
  return end;
}

/** The same for quoted content: a quote or a byte >= 0x80. */
function quotedStop(q: i32, end: i32): i32 {
  while (q < end) {
    const v = v128.load(q);
    const mask = i8x16.bitmask(v128.or(i8x16.eq(v, i8x16.splat(<i8>QUOTE)), i8x16.lt_s(v, i8x16.splat(0))));
    if (mask != 0) return min(q + ctz(mask), end);
    q += 16;
  }
  return end;
}

/**
 * Checks the UTF-8 sequence whose lead byte is at `q` (utf8-sequence.as.ts) and counts the code
 * units it saves; the offset after it, or -1: cut by `end` before the text's last bytes
 * (incomplete), or invalid (status INVALID_UTF8).
 */
function utf8(q: i32, end: i32, last: bool): i32 {
  const next = utf8Sequence(q, end);
  if (next < 0) {
    if (next == UTF8_INVALID || last) status = INVALID_UTF8;
    return -1;
  }
  // A four-byte sequence is two UTF-16 code units, the others one.
  const length = next - q;
  shrink += length - 1 - (length >> 2);
  return next;
}
