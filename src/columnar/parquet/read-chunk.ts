// Reads a column chunk our encoder wrote (column-chunk.ts) back into cells as castCell gives them
// (src/schema/cast.ts), for the query scan: DataPage v1, definition levels in the RLE/bit-packing
// hybrid, values PLAIN or RLE_DICTIONARY over a PLAIN dictionary page, every page Snappy.
// The kinds whose values give back exactly the cell castCell gives are read here (TEXT_EXACT_KINDS),
// and a timestamp or time chunk whose every cell was written in the form its instant reads back
// as (ChunkMeta.instantDigits, instant-text.ts); another one keeps its instant, not its text.
// https://github.com/apache/parquet-format/blob/master/Encodings.md
import type { Cell } from "../../schema/cast.ts";
import type { FieldType } from "../../schema/table-schema.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { ENCODING } from "./page-header.ts";
import { PAGE_DATA, PAGE_DICTIONARY, readPageHeader } from "./page-reader.ts";
import { snappyDecompress } from "./snappy-decompress.ts";
import { isoDate } from "../../schema/calendar.ts";
import { instantText } from "./instant-text.ts";

/** Kinds whose stored values are the cells castCell gives, to the character. */
export const TEXT_EXACT_KINDS: ReadonlySet<ColumnKind> = new Set(["int64", "decimal", "double", "boolean", "date", "string"]);

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const TWO_32 = 4294967296;

function integerCell(value: bigint): Cell {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value.toString();
}

function doubleCell(value: number): Cell {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "INF";
  if (value === -Infinity) return "-INF";
  return value;
}

/** A cell stored as text (the `string` kind) read as its field's type, as castCell reads that text. */
export function textCell(type: FieldType, text: string): Cell {
  switch (type) {
    case "integer": {
      const n = Number(text);
      return Number.isSafeInteger(n) && /^[+-]?[0-9]+$/.test(text) ? n : text;
    }
    case "number": {
      if (text === "NaN" || text === "INF" || text === "-INF") return text;
      const n = Number(text);
      return Number.isFinite(n) && text.trim() === text && text !== "" ? n : text;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    default:
      return text;
  }
}

function int64At(view: DataView, at: number): Cell {
  const lo = view.getUint32(at, true);
  const hi = view.getInt32(at + 4, true);
  const value = hi * TWO_32 + lo;
  if (Number.isSafeInteger(value)) return value;
  return integerCell(view.getBigInt64(at, true));
}

function decimalAt(bytes: Uint8Array, at: number): Cell {
  let value = 0n;
  for (let i = 0; i < 16; i++) value = (value << 8n) | BigInt(bytes[at + i]!);
  return integerCell(BigInt.asIntN(128, value));
}

/** Kinds read back as written only where the chunk's instantDigits says so. */
export const INSTANT_KINDS: ReadonlySet<ColumnKind> = new Set(["time", "timestamp-utc", "timestamp-local"]);

/**
 * `count` PLAIN values of `kind` from `bytes` at `at`, as cells; with `want`, only the values it
 * names (others null): a decimal or a date costs a BigInt or a string each, a text a decode. `digits`: an instant kind's fraction digits (instant-text.ts).
 */
function plainValues(bytes: Uint8Array, at: number, count: number, kind: ColumnKind, type: FieldType, want: Uint8Array | null = null, digits: number | null = null): Cell[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Cell[] = new Array<Cell>(count);
  switch (kind) {
    case "int64":
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : int64At(view, at + 8 * i);
      return out;
    case "double":
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : doubleCell(view.getFloat64(at + 8 * i, true));
      return out;
    case "date":
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : isoDate(view.getInt32(at + 4 * i, true));
      return out;
    case "boolean":
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : ((bytes[at + (i >> 3)]! >> (i & 7)) & 1) === 1;
      return out;
    case "decimal":
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : decimalAt(bytes, at + 16 * i);
      return out;
    case "string": {
      let p = at;
      for (let i = 0; i < count; i++) {
        const n = view.getUint32(p, true);
        out[i] = want !== null && want[i] === 0 ? null : textCell(type, utf8.decode(bytes.subarray(p + 4, p + 4 + n)));
        p += 4 + n;
      }
      return out;
    }
    case "time":
    case "timestamp-utc":
    case "timestamp-local":
      if (digits === null) throw new Error(`parquet reader: a ${kind} chunk not written as it reads back`);
      for (let i = 0; i < count; i++) out[i] = want !== null && want[i] === 0 ? null : instantText(view.getUint32(at + 8 * i, true), view.getInt32(at + 8 * i + 4, true), kind, digits);
      return out;
    default:
      throw new Error(`parquet reader: kind ${kind} is not read back as cells`);
  }
}

/** `count` values of the RLE/bit-packing hybrid with `width` bits each, from `at` to `end`. */
export function decodeHybrid(bytes: Uint8Array, at: number, end: number, width: number, count: number, out: Uint32Array): void {
  let p = at;
  let n = 0;
  const valueBytes = (width + 7) >> 3;
  if (width > 24) throw new Error(`parquet reader: bit width ${width} is more than the encoder writes`);
  const mask = (1 << width) - 1;
  while (n < count) {
    if (p >= end) throw new Error("parquet reader: hybrid run past its end");
    let header = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[p++]!;
      header += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    if (header % 2 === 0) {
      const run = header / 2;
      let value = 0;
      for (let b = 0; b < valueBytes; b++) value |= bytes[p++]! << (8 * b);
      const stop = Math.min(count, n + run);
      out.fill(value >>> 0, n, stop);
      n = stop;
    } else {
      // Bit-packed groups of 8, least significant bit first. `width` is at most 24 (levels are
      // 1 bit, dictionaries hold at most 65,536 entries), so the accumulator stays within 32 bits.
      const values = ((header - 1) / 2) * 8;
      let acc = 0;
      let bits = 0;
      for (let i = 0; i < values; i++) {
        while (bits < width) {
          acc |= (bytes[p++] ?? 0) << bits;
          bits += 8;
        }
        if (n < count) out[n++] = acc & mask;
        acc >>>= width;
        bits -= width;
      }
    }
  }
}

/** Bytes of one PLAIN value of a fixed-width kind. */
const FIXED_WIDTH: Partial<Record<ColumnKind, number>> = { int64: 8, double: 8, date: 4, decimal: 16, time: 8, "timestamp-utc": 8, "timestamp-local": 8 };

/**
 * A dictionary page's entries, each decoded when a wanted row first uses it: a query that
 * matches a few rows of a page decodes a few entries, not a dictionary of 65,536 texts.
 */
export class Dictionary {
  private readonly entries: (Cell | undefined)[];
  /** Where each entry starts in the page (text: at its length prefix). */
  private readonly starts: Uint32Array;
  private readonly page: Uint8Array;
  private readonly kind: ColumnKind;
  private readonly type: FieldType;
  private readonly digits: number | null;

  constructor(page: Uint8Array, count: number, kind: ColumnKind, type: FieldType, digits: number | null) {
    this.page = page;
    this.kind = kind;
    this.type = type;
    this.digits = digits;
    this.entries = new Array<Cell | undefined>(count);
    this.starts = new Uint32Array(count);
    const width = FIXED_WIDTH[kind];
    if (width !== undefined) {
      for (let i = 0; i < count; i++) this.starts[i] = width * i;
      return;
    }
    const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
    for (let i = 0, at = 0; i < count; i++) {
      this.starts[i] = at;
      at += 4 + view.getUint32(at, true);
    }
  }

  /**
   * Bytes it may come to hold, for a store that bounds what it keeps: its uncompressed page,
   * and per entry its start, its slot and the entry decoded (a text takes at most twice its
   * UTF-8 bytes, plus a string's header).
   */
  get heldBytes(): number {
    return 3 * this.page.length + 32 * this.starts.length;
  }

  get(index: number): Cell {
    const known = this.entries[index];
    if (known !== undefined) return known;
    if (index >= this.starts.length) throw new Error(`parquet reader: dictionary index ${index} past its ${this.starts.length} entries`);
    const cell = plainValues(this.page, this.starts[index]!, 1, this.kind, this.type, null, this.digits)[0]!;
    this.entries[index] = cell;
    return cell;
  }
}

/** What decoding a chunk's pages carries from one page to the next. */
interface PageState {
  readonly kind: ColumnKind;
  readonly type: FieldType;
  readonly wanted: Uint8Array | null;
  readonly digits: number | null;
  /** Cells of rows `base` on (a chunk's row r is cells[r - base]). */
  readonly cells: Cell[];
  readonly base: number;
  dictionary: Dictionary | null;
  levels: Uint32Array;
}

/**
 * Decodes the page whose header starts at `at` of `bytes`: a dictionary page becomes the state's
 * dictionary, a data page's cells go to state.cells from `row` on. Returns where the page ends and
 * the rows it held (0 for a dictionary page).
 */
function decodePage(bytes: Uint8Array, at: number, state: PageState, row: number): { end: number; rows: number } {
  const header = readPageHeader(bytes, at);
  const start = at + header.headerBytes;
  const end = start + header.compressed;
  if (header.type !== PAGE_DICTIONARY && header.type !== PAGE_DATA) return { end, rows: 0 };
  const page = snappyDecompress(bytes.subarray(start, end));
  const { kind, type, wanted, cells } = state;
  if (header.type === PAGE_DICTIONARY) {
    state.dictionary = new Dictionary(page, header.values, kind, type, state.digits);
    return { end, rows: 0 };
  }
  const count = header.values;
  const at0 = row - state.base;
  if (at0 < 0 || at0 + count > cells.length) throw new Error(`parquet reader: page of ${count} rows from row ${row} is outside the rows being read`);
  if (state.levels.length < count) state.levels = new Uint32Array(count);
  const levels = state.levels;
  const levelBytes = new DataView(page.buffer, page.byteOffset, page.byteLength).getUint32(0, true);
  decodeHybrid(page, 4, 4 + levelBytes, 1, count, levels);
  let present = 0;
  for (let i = 0; i < count; i++) present += levels[i]!;
  const valuesAt = 4 + levelBytes;
  if (header.encoding === ENCODING.RLE_DICTIONARY) {
    const dictionary = state.dictionary;
    if (dictionary === null) throw new Error("parquet reader: dictionary indices without a dictionary page");
    const indices = new Uint32Array(present);
    if (present > 0) decodeHybrid(page, valuesAt + 1, page.length, page[valuesAt]!, present, indices);
    for (let i = 0, v = 0; i < count; i++) {
      if (levels[i] !== 1) cells[at0 + i] = null;
      else {
        const index = indices[v++]!;
        cells[at0 + i] = wanted === null || wanted[row + i] === 1 ? dictionary.get(index) : null;
      }
    }
  } else if (header.encoding === ENCODING.PLAIN) {
    let want: Uint8Array | null = null;
    if (wanted !== null) {
      want = new Uint8Array(present);
      for (let i = 0, v = 0; i < count; i++) if (levels[i] === 1) want[v++] = wanted[row + i]!;
    }
    const values = plainValues(page, valuesAt, present, kind, type, want, state.digits);
    let v = 0;
    for (let i = 0; i < count; i++) cells[at0 + i] = levels[i] === 1 ? values[v++]! : null;
  } else throw new Error(`parquet reader: encoding ${header.encoding} is not one the encoder writes`);
  return { end, rows: count };
}

/** State for decoding rows `base` to `base + rows`. */
function pageState(base: number, rows: number, kind: ColumnKind, type: FieldType, wanted: Uint8Array | null, digits: number | null): PageState {
  // Not filled: every row of a decoded page is written.
  return { kind, type, wanted, digits, cells: new Array<Cell>(rows), base, dictionary: null, levels: new Uint32Array(1024) };
}

/**
 * The cells of one column chunk (its bytes from its first page to its end), `rows` of them.
 * `type` is the field's Table Schema type (for text kinds); `kind` the chunk's Parquet kind.
 * With `wanted` (1 per row to read), other rows' values are skipped,
 * not decoded: they answer null. `digits`: the chunk's instantDigits, for a time or timestamp.
 */
export function readChunk(bytes: Uint8Array, rows: number, kind: ColumnKind, type: FieldType, wanted: Uint8Array | null = null, digits: number | null = null): Cell[] {
  const state = pageState(0, rows, kind, type, wanted, digits);
  let at = 0;
  let row = 0;
  while (row < rows && at < bytes.length) {
    const page = decodePage(bytes, at, state, row);
    at = page.end;
    row += page.rows;
  }
  if (row !== rows) throw new Error(`parquet reader: chunk holds ${row} rows, expected ${rows}`);
  return state.cells;
}

/**
 * The dictionary page of a chunk (its bytes from the page's header to its end), decoded: its
 * entries are decoded as they are asked for, and stay decoded. `type`, `kind`, `digits` as readChunk.
 */
export function readDictionary(bytes: Uint8Array, kind: ColumnKind, type: FieldType, digits: number | null = null): Dictionary {
  const header = readPageHeader(bytes, 0);
  if (header.type !== PAGE_DICTIONARY) throw new Error("parquet reader: not a dictionary page");
  return new Dictionary(snappyDecompress(bytes.subarray(header.headerBytes, header.headerBytes + header.compressed)), header.values, kind, type, digits);
}

/**
 * Some pages of a column chunk, read apart: its dictionary page when it has one (its bytes, or
 * decoded by readDictionary), and data pages with the row each starts at.
 */
export interface SomePages {
  dictionary: Uint8Array | Dictionary | null;
  pages: readonly { bytes: Uint8Array; firstRow: number }[];
}

/** Cells of the rows `from` up to `to` of a chunk: row r is cells[r - from]. */
export interface RowCells {
  from: number;
  to: number;
  cells: Cell[];
}

/**
 * The cells of the rows `from` to `to` of a chunk, whose pages holding them are `some` (located
 * by the offset index, docs/columnar.md): rows between them of pages not read are left out
 * (undefined, not null). With `wanted` (by the chunk's row), as readChunk.
 */
export function readPages(some: SomePages, from: number, to: number, kind: ColumnKind, type: FieldType, wanted: Uint8Array | null = null, digits: number | null = null): RowCells {
  const state = pageState(from, to - from, kind, type, wanted, digits);
  if (some.dictionary instanceof Dictionary) state.dictionary = some.dictionary;
  else if (some.dictionary !== null) decodePage(some.dictionary, 0, state, from);
  for (const page of some.pages) {
    const read = decodePage(page.bytes, 0, state, page.firstRow);
    if (read.end !== page.bytes.length || read.rows === 0) throw new Error(`parquet reader: the page at row ${page.firstRow} is not one data page`);
  }
  return { from, to, cells: state.cells };
}

/** A chunk statistic (Parquet's binary min or max) as a cell of its kind; undefined when it cannot bound cells. */
export function statisticCell(bytes: Uint8Array, kind: ColumnKind, type: FieldType): Cell | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (kind) {
    case "int64":
      return bytes.length === 8 ? int64At(view, 0) : undefined;
    case "decimal":
      return bytes.length === 16 ? decimalAt(bytes, 0) : undefined;
    case "double":
      return bytes.length === 8 ? doubleCell(view.getFloat64(0, true)) : undefined;
    case "date":
      return bytes.length === 4 ? isoDate(view.getInt32(0, true)) : undefined;
    case "boolean":
      return bytes.length === 1 ? bytes[0] === 1 : undefined;
    case "string":
      // Text bounds are in UTF-8 byte order, which is the language's code point order, but only
      // for a string column: an integer or a datetime kept as text orders otherwise.
      if (type !== "string") return undefined;
      try {
        return utf8.decode(bytes);
      } catch {
        return undefined;
      }
    default:
      return undefined;
  }
}
