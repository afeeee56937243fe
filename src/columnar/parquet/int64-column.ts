// The INT64 column chunks: integers, times of day and timestamps, each value as two 32-bit halves.
// Each reads a cell (cell-values.ts), writes its PLAIN value and keeps each page's and the chunk's
// min/max in Parquet's binary form, signed, as
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (ColumnOrder) says.
// A time or timestamp chunk also learns whether its cells are written as they read back (instant-text.ts).
import type { CellBatch } from "../../csv/cell-batch.ts";
import type { Field } from "../../schema/table-schema.ts";
import { ByteBuffer } from "./byte-buffer.ts";
import { addCellsByBytes } from "./byte-cells.ts";
import { DATETIME_INVALID, DATETIME_ZONED, INTEGER_DECIMAL, INTEGER_OK, instantDigits, int64, readDatetime, readInteger, readTime, setInt64, setInt64Big, textBytes } from "./cell-values.ts";
import { type Bounds, ColumnChunk, type TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { type Canonical, canonicalText } from "./field-text.ts";
import type { ValueSink } from "./value-sink.ts";

const SAFE_HI = 1 << 21;
/** No time or timestamp value in the chunk yet. */
const NO_DIGITS_YET = -2;

/** INT64 columns: integers, times of day and timestamps, each value as two 32-bit halves. */
export class Int64Column implements TypedColumn {
  kind: ColumnKind;
  readonly chunk = new ColumnChunk(this, true);
  need: ColumnKind | undefined = undefined;
  /** The chunk's bounds, from its pages' (takePageBounds). */
  private has = false;
  private minLo = 0;
  private minHi = 0;
  private maxLo = 0;
  private maxHi = 0;
  /** The bounds of the values noted since the page began. */
  private pageHas = false;
  private pageMinLo = 0;
  private pageMinHi = 0;
  private pageMaxLo = 0;
  private pageMaxHi = 0;
  /** A time or timestamp chunk's fraction digits while every value is written as it reads back (instant-text.ts); -1 once one is not. */
  private digits = NO_DIGITS_YET;
  private readonly canonical: Canonical | null;
  private readonly sink: ValueSink | null;

  constructor(kind: ColumnKind, field: Field, sink: ValueSink | null = null) {
    this.kind = kind;
    this.canonical = canonicalText(field);
    this.sink = sink;
    // A dictionary key is the value when it is a safe integer, else "hi:lo" (see add).
    if (sink !== null) this.chunk.entrySink = (key, count) => (typeof key === "number" ? sink.number(key, count) : sink.big(halvesOf(key), count));
  }

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says (byte-cells.ts). */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    return addCellsByBytes(this, this.canonical === null, batch, c, from, to, missing);
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    return this.addBytes(textBytes(text), 0, text.length);
  }

  /** A cell's canonical UTF-8 bytes [start, end); as add. */
  addBytes(bytes: Uint8Array, start: number, end: number): ColumnKind | undefined {
    const kind = this.kind;
    if (kind === "int64") {
      const status = readInteger(bytes, start, end);
      if (status !== INTEGER_OK) return status === INTEGER_DECIMAL ? "decimal" : "string";
    } else if (kind === "time") {
      const micros = readTime(bytes, start, end);
      if (micros < 0) return "string";
      setInt64(micros);
      this.noteDigits(instantDigits(bytes, start, end, start, false));
    } else {
      const status = readDatetime(bytes, start, end);
      if (status === DATETIME_INVALID) return "string";
      const used = status === DATETIME_ZONED ? "timestamp-utc" : "timestamp-local";
      if (kind === "timestamp") this.kind = used;
      else if (kind !== used) return "string";
      this.noteDigits(instantDigits(bytes, start, end, start + 11, status === DATETIME_ZONED));
    }
    const lo = int64.lo;
    const hi = int64.hi;
    const chunk = this.chunk;
    const out = chunk.slot(chunk.dict === null ? 0 : hi >= -SAFE_HI && hi < SAFE_HI ? hi * 4294967296 + lo : `${hi}:${lo}`);
    if (out !== null) {
      out.i64(lo, hi);
      this.note(lo, hi);
    }
    if (chunk.dict === null && this.sink !== null) {
      if (hi >= -SAFE_HI && hi < SAFE_HI) this.sink.number(hi * 4294967296 + lo, 1);
      else this.sink.big((BigInt(hi) << 32n) + BigInt(lo), 1);
    }
    chunk.placed(8);
    return undefined;
  }

  private noteDigits(digits: number): void {
    if (digits !== this.digits) this.digits = this.digits === NO_DIGITS_YET ? digits : -1;
  }

  takeDigits(): number | null {
    const digits = this.digits;
    this.digits = NO_DIGITS_YET;
    return digits >= 0 ? digits : null;
  }

  private note(lo: number, hi: number): void {
    if (!this.pageHas) {
      this.pageHas = true;
      this.pageMinLo = this.pageMaxLo = lo;
      this.pageMinHi = this.pageMaxHi = hi;
      return;
    }
    if (hi < this.pageMinHi || (hi === this.pageMinHi && lo < this.pageMinLo)) {
      this.pageMinHi = hi;
      this.pageMinLo = lo;
    }
    if (hi > this.pageMaxHi || (hi === this.pageMaxHi && lo > this.pageMaxLo)) {
      this.pageMaxHi = hi;
      this.pageMaxLo = lo;
    }
  }

  takePageBounds(): Bounds | null {
    if (!this.pageHas) return null;
    this.pageHas = false;
    const { pageMinLo, pageMinHi, pageMaxLo, pageMaxHi } = this;
    if (!this.has) {
      this.has = true;
      this.minLo = pageMinLo;
      this.minHi = pageMinHi;
      this.maxLo = pageMaxLo;
      this.maxHi = pageMaxHi;
    } else {
      if (pageMinHi < this.minHi || (pageMinHi === this.minHi && pageMinLo < this.minLo)) {
        this.minHi = pageMinHi;
        this.minLo = pageMinLo;
      }
      if (pageMaxHi > this.maxHi || (pageMaxHi === this.maxHi && pageMaxLo > this.maxLo)) {
        this.maxHi = pageMaxHi;
        this.maxLo = pageMaxLo;
      }
    }
    return int64Bounds(pageMinLo, pageMinHi, pageMaxLo, pageMaxHi);
  }

  entryBounds(keys: readonly (string | number)[]): Bounds | null {
    if (keys.length === 0) return null;
    let min: bigint | null = null;
    let max: bigint | null = null;
    for (const key of keys) {
      const value = typeof key === "number" ? BigInt(key) : halvesOf(key);
      if (min === null || value < min) min = value;
      if (max === null || value > max) max = value;
    }
    setInt64Big(min!);
    const { lo: minLo, hi: minHi } = int64;
    setInt64Big(max!);
    return int64Bounds(minLo, minHi, int64.lo, int64.hi);
  }

  takeStatistics(): Bounds | null {
    const stats = this.has ? int64Bounds(this.minLo, this.minHi, this.maxLo, this.maxHi) : null;
    this.has = false;
    if (this.kind === "timestamp-utc") this.sink?.zoned();
    return stats;
  }
}

function int64Bounds(minLo: number, minHi: number, maxLo: number, maxHi: number): Bounds {
  const min = new ByteBuffer(8);
  min.i64(minLo, minHi);
  const max = new ByteBuffer(8);
  max.i64(maxLo, maxHi);
  return { min: min.copy(), max: max.copy() };
}

/** The int64 of a dictionary key written as "hi:lo". */
function halvesOf(key: string): bigint {
  const colon = key.indexOf(":");
  return (BigInt(key.slice(0, colon)) << 32n) + BigInt(key.slice(colon + 1));
}

