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
import { addCellsByKernel, KERNEL_INT64, KERNEL_TIME, KERNEL_TIMESTAMP, type KernelColumn, kernelBounds, views, ZONE_LOCAL, ZONE_UNKNOWN, ZONE_UTC } from "./typed-cells.ts";
import type { ValueSink } from "./value-sink.ts";

const SAFE_HI = 1 << 21;
/** No time or timestamp value in the chunk yet. */
const NO_DIGITS_YET = -2;

/** INT64 columns: integers, times of day and timestamps, each value as two 32-bit halves. */
export class Int64Column implements TypedColumn, KernelColumn {
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

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says (typed-cells.ts, byte-cells.ts). */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    if (this.canonical === null && missing === null) return addCellsByKernel(this, batch, c, from, to);
    return addCellsByBytes(this, this.canonical === null, batch, c, from, to, missing);
  }

  kernelKind(): number {
    return this.kind === "int64" ? KERNEL_INT64 : this.kind === "time" ? KERNEL_TIME : KERNEL_TIMESTAMP;
  }

  kernelZone(): number {
    return this.kind === "timestamp-utc" ? ZONE_UTC : this.kind === "timestamp-local" ? ZONE_LOCAL : ZONE_UNKNOWN;
  }

  kernelDigits(): number {
    return this.digits;
  }

  parsed(zone: number, digits: number): void {
    if (this.kind === "timestamp" && zone !== ZONE_UNKNOWN) this.kind = zone === ZONE_UTC ? "timestamp-utc" : "timestamp-local";
    this.digits = digits;
  }

  putValue(v: number): void {
    const at = (views.valuesAt >> 2) + 2 * v;
    this.put(views.i32[at]! >>> 0, views.i32[at + 1]!);
  }

  noteValues(from: number, to: number): void {
    if (kernelBounds(KERNEL_INT64, from, to)) {
      const i32 = views.i32;
      this.note(i32[0]! >>> 0, i32[1]!);
      this.note(i32[2]! >>> 0, i32[3]!);
    }
    this.sink?.int64s(views.i32, (views.valuesAt >> 3) + from, (views.valuesAt >> 3) + to);
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
    this.put(int64.lo, int64.hi);
    return undefined;
  }

  /** Writes the int64 `hi:lo` (lo unsigned) as the chunk's next value. */
  private put(lo: number, hi: number): void {
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

  entryBounds(keys: readonly (string | number)[], count: number): Bounds | null {
    if (count === 0) return null;
    let min: bigint | null = null;
    let max: bigint | null = null;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
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

/** Where bounds are written before they are copied out, one buffer for every page (page-header.ts says why). */
const boundsScratch = new ByteBuffer(16);

function int64Bounds(minLo: number, minHi: number, maxLo: number, maxHi: number): Bounds {
  boundsScratch.reset();
  boundsScratch.i64(minLo, minHi);
  boundsScratch.i64(maxLo, maxHi);
  const bytes = boundsScratch.bytes;
  return { min: bytes.slice(0, 8), max: bytes.slice(8, 16) };
}

/** The int64 of a dictionary key written as "hi:lo". */
function halvesOf(key: string): bigint {
  const colon = key.indexOf(":");
  return (BigInt(key.slice(0, colon)) << 32n) + BigInt(key.slice(colon + 1));
}

