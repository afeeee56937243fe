// The BOOLEAN and text column chunks. Booleans are bit-packed PLAIN values; text is UTF-8, its
// min/max in byte order (code point order), cut as text-statistics.ts says.
import { type CellBatch, ESCAPED } from "../../csv/cell-batch.ts";
import { hashUtf8, KEY } from "../../csv/text-key.ts";
import { castCell } from "../../schema/cast.ts";
import type { Field } from "../../schema/table-schema.ts";
import { compareText } from "./cell-values.ts";
import type { ByteBuffer } from "./byte-buffer.ts";
import { addCellsByBytes } from "./byte-cells.ts";
import { type Bounds, ColumnChunk, ENTRY_HASH_BITS, type TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { booleanLookup } from "./field-text.ts";
import { textStatistics } from "./text-statistics.ts";
import type { ValueSink } from "./value-sink.ts";

const NOTHING_MISSING: ReadonlySet<string> = new Set();
const EMPTY = new Uint8Array(0);
const QUOTE = 0x22;
const utf8Text = new TextDecoder();

/** Bytes [start, end) of `a` against all of `b`, in byte order. */
function compareUtf8(a: Uint8Array, start: number, end: number, b: Uint8Array): number {
  const n = Math.min(end - start, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[start + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return end - start - b.length;
}

/** BOOLEAN: PLAIN booleans are bit-packed, least significant bit first; no dictionary. */
export class BooleanColumn implements TypedColumn {
  readonly kind: ColumnKind = "boolean";
  readonly chunk = new ColumnChunk(this, false, true);
  need: ColumnKind | undefined = undefined;
  /** The chunk's counts, from its pages' (takePageBounds), and those of the values added since the page began. */
  private trues = 0;
  private falses = 0;
  private pageTrues = 0;
  private pageFalses = 0;
  private readonly lookup: (text: string) => boolean | undefined;
  /** The field spells booleans the default way: its cells are read from their bytes. */
  private readonly anyCase: boolean;
  private readonly sink: ValueSink | null;

  constructor(field: Field, sink: ValueSink | null = null) {
    this.lookup = booleanLookup(field);
    this.anyCase = field.trueValues === undefined && field.falseValues === undefined;
    this.sink = sink;
  }

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says (byte-cells.ts). */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    return addCellsByBytes(this, this.anyCase, batch, c, from, to, missing);
  }

  add(text: string): ColumnKind | undefined {
    return this.put(this.lookup(text));
  }

  /** A cell's UTF-8 bytes [start, end) of a field with the default spellings (`true`, `false`, any case); as add. */
  addBytes(bytes: Uint8Array, start: number, end: number): ColumnKind | undefined {
    const n = end - start;
    let value: boolean | undefined;
    // A byte ORed with 0x20 is a lower-case letter only when it is that letter in either case.
    if (n === 4 && (bytes[start]! | 0x20) === 116 && (bytes[start + 1]! | 0x20) === 114 && (bytes[start + 2]! | 0x20) === 117 && (bytes[start + 3]! | 0x20) === 101) value = true;
    else if (n === 5 && (bytes[start]! | 0x20) === 102 && (bytes[start + 1]! | 0x20) === 97 && (bytes[start + 2]! | 0x20) === 108 && (bytes[start + 3]! | 0x20) === 115 && (bytes[start + 4]! | 0x20) === 101) value = false;
    return this.put(value);
  }

  private put(value: boolean | undefined): ColumnKind | undefined {
    if (value === undefined) return "string";
    this.chunk.slot(0)!.u8(value ? 1 : 0);
    if (value) this.pageTrues++;
    else this.pageFalses++;
    this.chunk.placed(1);
    return undefined;
  }

  takePageBounds(): Bounds | null {
    const bounds = booleanBounds(this.pageTrues, this.pageFalses);
    this.trues += this.pageTrues;
    this.falses += this.pageFalses;
    this.pageTrues = this.pageFalses = 0;
    return bounds;
  }

  /** Never called: a BOOLEAN chunk has no dictionary. */
  entryBounds(): Bounds | null {
    return null;
  }

  takeDigits(): null {
    return null;
  }

  takeStatistics(): Bounds | null {
    const stats = booleanBounds(this.trues, this.falses);
    this.sink?.booleans(this.trues, this.falses);
    this.trues = this.falses = 0;
    return stats;
  }
}

function booleanBounds(trues: number, falses: number): Bounds | null {
  if (trues === 0 && falses === 0) return null;
  return { min: Uint8Array.of(falses > 0 ? 0 : 1), max: Uint8Array.of(trues > 0 ? 1 : 0) };
}

/**
 * BYTE_ARRAY UTF-8 text, dictionary-encoded while the dictionary stays small. A field of another
 * type widened to text holds the text of castCell's value (`007` in an integer field is `7`), or the
 * cell itself when it does not cast. A string field's cell is read as its UTF-8 bytes (a doubled
 * quote undone): keyed once (src/csv/text-key.ts), looked up in the dictionary by that key and copied into the page
 * as they are, its bounds kept as bytes (UTF-8 byte order is code point order); it becomes a
 * string only as a new dictionary entry, so the batch's text is not decoded for it.
 */
export class StringColumn implements TypedColumn {
  readonly kind: ColumnKind = "string";
  readonly chunk = new ColumnChunk(this, true);
  need: ColumnKind | undefined = undefined;
  /** The chunk's bounds, from its pages' (takePageBounds). */
  private min = "";
  private max = "";
  private has = false;
  /** The UTF-8 bounds of the values noted since the page began (PLAIN values, new dictionary entries). */
  private pageMin: Uint8Array = EMPTY;
  private pageMax: Uint8Array = EMPTY;
  private pageHas = false;
  private readonly field: Field | null;
  private readonly sink: ValueSink | null;
  /** A cell's bytes with its doubled quotes undone (addCells). */
  private unescaped = new Uint8Array(256);

  constructor(field: Field, sink: ValueSink | null = null) {
    this.field = field.type === "string" ? null : { ...field, constraints: {} };
    this.sink = sink;
    if (sink !== null) this.chunk.entrySink = (key, count) => sink.text(key as string, count);
  }

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says. Its own loop, not byte-cells.ts: a text cell is copied into the page and looked up in the dictionary by its bytes, not parsed. */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    const { bytes, cells, ends } = batch;
    const direct = this.field === null;
    // A text cell is keyed once, here, for the dictionary or the statistics, whichever takes it.
    const keyed = direct && (chunk.dict !== null || this.sink !== null);
    let units = 0;
    for (let r = from; r < to; r++) {
      const k = (r === 0 ? batch.first : ends[r - 1]!) + c;
      if (k >= ends[r]!) {
        // A short record's missing cell reads as "".
        if (missing === null || missing.has("")) chunk.addNull();
        else this.add("");
        continue;
      }
      const start = cells[4 * k]!;
      const end = cells[4 * k + 1]!;
      if (missing === null ? start === end : missing.has(batch.cellText(k))) {
        chunk.addNull();
        continue;
      }
      const length = cells[4 * k + 3]! - cells[4 * k + 2]!;
      if (!direct) {
        const text = batch.cellText(k);
        units += text.length;
        this.add(text);
      } else if (start >= 0) {
        units += length;
        const points = keyed ? hashUtf8(bytes, start, end - start) : 0;
        this.addUtf8(bytes, start, end, length, points);
      } else {
        // A doubled quote: its bytes undone into `unescaped`, so the batch's text is not decoded for it.
        const n = this.unescape(bytes, start & ~ESCAPED, end);
        const cellUnits = length - (end - (start & ~ESCAPED) - n);
        units += cellUnits;
        const points = keyed ? hashUtf8(this.unescaped, 0, n) : 0;
        this.addUtf8(this.unescaped, 0, n, cellUnits, points);
      }
    }
    return units;
  }

  /** Bytes [start, end) of a cell that held doubled quotes, each pair made one, into `unescaped`; their length. */
  private unescape(bytes: Uint8Array, start: number, end: number): number {
    if (this.unescaped.length < end - start) this.unescaped = new Uint8Array(Math.max(end - start, this.unescaped.length * 2));
    const out = this.unescaped;
    let n = 0;
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      out[n++] = b;
      if (b === QUOTE) i++;
    }
    return n;
  }

  add(raw: string): ColumnKind | undefined {
    let text = raw;
    if (this.field !== null) {
      const cast = castCell(this.field, raw, NOTHING_MISSING);
      if (cast.ok && cast.value !== null) text = String(cast.value);
    }
    const out = this.chunk.slot(text);
    if (out !== null) {
      const written = out.lengthPrefixedUtf8(text);
      this.note(out.bytes, out.length - written, out.length);
      // PLAIN (no dictionary, so `out` is the page): the sink hashes the bytes just written.
      if (this.chunk.dict === null) this.sink?.utf8(out.bytes, out.length - written, written, text);
    }
    this.chunk.placed(text.length + 4);
    return undefined;
  }

  /**
   * A string field's cell whose UTF-8 is bytes [start, end), of `units` UTF-16 code units and
   * `points` code points, its key in KEY as src/csv/text-key.ts hashUtf8 left it (read only with a
   * dictionary or a sink); as add. A string is made only for a new dictionary entry. The key's
   * lanes are read here, not passed: a lane past 2^30 passed to a call is a heap number, two
   * objects per cell.
   */
  private addUtf8(bytes: Uint8Array, start: number, end: number, units: number, points: number): void {
    const chunk = this.chunk;
    let out: ByteBuffer | null;
    if (chunk.dict === null) out = chunk.slot(0);
    else {
      const entry = chunk.entryOf(bytes, start, end, (KEY[0]! ^ KEY[1]!) & ENTRY_HASH_BITS);
      if (entry >= 0) {
        chunk.reuse(entry);
        chunk.placed(units + 4);
        return;
      }
      out = chunk.slot(utf8Text.decode(bytes.subarray(start, end)));
    }
    if (out !== null) {
      const written = out.lengthPrefixedBytes(bytes, start, end);
      this.note(out.bytes, out.length - written, out.length);
      // The sink reads the cell's key from KEY and the bytes only to keep the text: no string is
      // made and nothing hashed for the cell here (docs/statistics.md, "Cost").
      if (chunk.dict === null) this.sink?.keyedUtf8(out.bytes, out.length - written, written, points, units);
    }
    chunk.placed(units + 4);
  }

  /** Counts the value whose UTF-8 is bytes [start, end) in the page's bounds. */
  private note(bytes: Uint8Array, start: number, end: number): void {
    if (!this.pageHas) {
      this.pageHas = true;
      this.pageMin = this.pageMax = bytes.slice(start, end);
      return;
    }
    if (compareUtf8(bytes, start, end, this.pageMin) < 0) this.pageMin = bytes.slice(start, end);
    else if (compareUtf8(bytes, start, end, this.pageMax) > 0) this.pageMax = bytes.slice(start, end);
  }

  takePageBounds(): Bounds | null {
    // The page is cut: its values are about to be written over.
    this.sink?.pageDone();
    if (!this.pageHas) return null;
    this.pageHas = false;
    const pageMin = utf8Text.decode(this.pageMin);
    const pageMax = utf8Text.decode(this.pageMax);
    if (!this.has || compareText(pageMin, this.min) < 0) this.min = pageMin;
    if (!this.has || compareText(pageMax, this.max) > 0) this.max = pageMax;
    this.has = true;
    return textStatistics(pageMin, pageMax);
  }

  entryBounds(keys: readonly (string | number)[], count: number): Bounds | null {
    if (count === 0) return null;
    let min = keys[0] as string;
    let max = min;
    for (let i = 1; i < count; i++) {
      const key = keys[i] as string;
      if (compareText(key, min) < 0) min = key;
      else if (compareText(key, max) > 0) max = key;
    }
    return textStatistics(min, max);
  }

  takeDigits(): null {
    return null;
  }

  takeStatistics(): Bounds | null {
    const stats = this.has ? textStatistics(this.min, this.max) : null;
    this.has = false;
    return stats;
  }
}
