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
// then at `recordsAt` one i32 per record: the index after its last cell; then at `keysAt` three
// i32 per cell of the columns whose byte at `flagsAt` is set (as the cell is read) or that
// `keyColumn` asks for (after): the key of its bytes as src/csv/text-key.ts `hashUtf8` makes it
// (high lane, low lane) and its length in code points, so a text cell is hashed once, here, for
// the Parquet dictionary and the column statistics (docs/statistics.md, "Cost"); a cell that
// held a doubled quote gets no key (its bytes are not the text's); then the input.

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
let keysAt = 0;
let flagsAt = 0;
let flagCount = 0;
/** The cell count when the record being read began: a cell's column is cellCount - recordFirst. */
let recordFirst = 0;
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

/** Where the cell, record and key arrays and the columns' flags are, and how many cells and flags they hold. */
export function configure(cells: i32, records: i32, keys: i32, cellCapacity: i32, flags: i32, flagsLength: i32): void {
  cellsAt = cells;
  recordsAt = records;
  keysAt = keys;
  flagsAt = flags;
  flagCount = flagsLength;
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
      recordFirst = cellCount;
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
  const column = cellCount - recordFirst;
  if (!escaped && column < flagCount && load<u8>(flagsAt + column) != 0) key(keysAt + 12 * cellCount, start, to);
  const at = cellsAt + 16 * cellCount++;
  store<i32>(at, escaped ? start | (1 << 31) : start);
  store<i32>(at + 4, to);
  store<i32>(at + 8, start - from - shrink);
  store<i32>(at + 12, start - from - shrink);
  return true;
}

/**
 * Keys cell `column` of records [recordFrom, recordTo) of the last call (`first`: the first cell
 * of record recordFrom), but a short record's missing cell and a cell that held a doubled quote.
 * For a column not yet flagged when the records were read: its bytes are then read again, out
 * of cache, where a flagged column's are keyed while they are read (cell-decoder.ts flags a
 * column once asked).
 */
export function keyColumn(column: i32, first: i32, recordFrom: i32, recordTo: i32): void {
  let k = first + column;
  for (let r = recordFrom; r < recordTo; r++) {
    const next = load<i32>(recordsAt + 4 * r);
    if (k < next) {
      const start = load<i32>(cellsAt + 16 * k);
      if (start >= 0) key(keysAt + 12 * k, start, load<i32>(cellsAt + 16 * k + 4));
    }
    k = next + column;
  }
}

/**
 * Writes at `at` the key of bytes [start, to) and their code points: the bits of text-key.ts
 * `hashUtf8` (two cyrb53-style lanes, four little-endian bytes a step, a continuation byte
 * 10xxxxxx not counted as a code point). The last word's missing bytes read as zero; the load
 * past `to` stays inside the input's slack.
 */
function key(at: i32, start: i32, to: i32): void {
  const length = to - start;
  let h1: u32 = 0xdeadbeef ^ <u32>length;
  let h2: u32 = 0x41c6ce57;
  let continuing: u32 = 0;
  let i = start;
  for (; i + 3 < to; i += 4) {
    const word = load<u32>(i);
    h1 = (h1 ^ word) * 2654435761;
    h2 = (h2 ^ word) * 1597334677;
    continuing += popcnt(word & ~(word << 1) & 0x80808080);
  }
  if (i < to) {
    const word = load<u32>(i) & (0xffffffff >>> (32 - 8 * <u32>(to - i)));
    h1 = (h1 ^ word) * 2654435761;
    h2 = (h2 ^ word) * 1597334677;
    continuing += popcnt(word & ~(word << 1) & 0x80808080);
  }
  h1 = ((h1 ^ (h1 >>> 16)) * 2246822507) ^ ((h2 ^ (h2 >>> 13)) * 3266489909);
  h2 = ((h2 ^ (h2 >>> 16)) * 2246822507) ^ ((h1 ^ (h1 >>> 13)) * 3266489909);
  store<u32>(at, h2);
  store<u32>(at + 4, h1);
  store<i32>(at + 8, length - <i32>continuing);
}

/** Ends the cell `emit` began: its UTF-16 end, once the bytes inside it are counted. */
function emitted(to: i32, from: i32): void {
  store<i32>(cellsAt + 16 * (cellCount - 1) + 12, to - from - shrink);
}

/** One record from `p`: the offset after its line end, or -1 (incomplete, full or an error, in `status`). */
function record(p: i32, end: i32, last: bool, from: i32): i32 {
  recordFirst = cellCount;
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
