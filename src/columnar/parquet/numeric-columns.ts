// The numeric column chunks held as JS numbers or bigints: DATE and DOUBLE, and DECIMAL(38, 0)
// (INT64 is int64-column.ts). Each reads a cell (cell-values.ts), writes its PLAIN value and keeps
// each page's and the chunk's min/max in Parquet's binary form, signed; NaN is left out and a zero
// bound is -0.0 (min) or +0.0 (max), as
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (ColumnOrder) says.
import type { CellBatch } from "../../csv/cell-batch.ts";
import type { Field } from "../../schema/table-schema.ts";
import { ByteBuffer } from "./byte-buffer.ts";
import { addCellsByBytes } from "./byte-cells.ts";
import { decimalBytes, INTEGER_DECIMAL, INTEGER_OK, readDate, readInteger, readNumber, textBytes } from "./cell-values.ts";
import { type Bounds, ColumnChunk, type TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { type Canonical, canonicalText } from "./field-text.ts";
import { addCellsByKernel, KERNEL_DATE, KERNEL_DOUBLE, type KernelColumn, kernelBounds, views, ZONE_UNKNOWN } from "./typed-cells.ts";
import type { ValueSink } from "./value-sink.ts";

/** Where a page's bounds are written before they are copied out, one buffer for every page (page-header.ts says why). */
const boundsScratch = new ByteBuffer(16);

/** Numeric columns held as a JS number: DATE (INT32 days) and DOUBLE. */
export class NumberColumn implements TypedColumn, KernelColumn {
  readonly kind: ColumnKind;
  readonly chunk = new ColumnChunk(this, true);
  need: ColumnKind | undefined = undefined;
  /** The chunk's bounds, from its pages' (takePageBounds), and those of the values noted since the page began. */
  private pageMin = Infinity;
  private pageMax = -Infinity;
  private min = Infinity;
  private max = -Infinity;
  private readonly canonical: Canonical | null;
  private readonly sink: ValueSink | null;

  constructor(kind: "date" | "double", field: Field, sink: ValueSink | null = null) {
    this.kind = kind;
    this.canonical = canonicalText(field);
    this.sink = sink;
    if (sink !== null) this.chunk.entrySink = (key, count) => sink.number(key === "-0" ? -0 : (key as number), count);
  }

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says (typed-cells.ts, byte-cells.ts). */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    if (this.canonical === null && missing === null) return addCellsByKernel(this, batch, c, from, to);
    return addCellsByBytes(this, this.canonical === null, batch, c, from, to, missing);
  }

  kernelKind(): number {
    return this.kind === "date" ? KERNEL_DATE : KERNEL_DOUBLE;
  }

  kernelZone(): number {
    return ZONE_UNKNOWN;
  }

  kernelDigits(): number {
    return -2;
  }

  parsed(): void {}

  putValue(v: number): void {
    if (this.kind === "date") this.putDays(views.i32[(views.valuesAt >> 2) + v]!);
    else this.putDouble(views.f64[(views.valuesAt >> 3) + v]!);
  }

  noteValues(from: number, to: number): void {
    const date = this.kind === "date";
    if (kernelBounds(date ? KERNEL_DATE : KERNEL_DOUBLE, from, to)) {
      this.note(date ? views.i32[0]! : views.f64[0]!);
      this.note(date ? views.i32[2]! : views.f64[1]!);
    }
    const sink = this.sink;
    if (sink === null) return;
    if (date) sink.days(views.i32, (views.valuesAt >> 2) + from, (views.valuesAt >> 2) + to);
    else sink.doubles(views.f64, (views.valuesAt >> 3) + from, (views.valuesAt >> 3) + to);
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    return this.addBytes(textBytes(text), 0, text.length);
  }

  /** A cell's canonical UTF-8 bytes [start, end); as add. */
  addBytes(bytes: Uint8Array, start: number, end: number): ColumnKind | undefined {
    if (this.kind === "date") {
      const days = readDate(bytes, start, end);
      if (Number.isNaN(days)) return "string";
      this.putDays(days);
    } else {
      const value = readNumber(bytes, start, end);
      if (value === undefined) return "string";
      this.putDouble(value);
    }
    return undefined;
  }

  private putDays(days: number): void {
    const out = this.chunk.slot(days);
    if (out !== null) {
      out.i32(days);
      this.note(days);
    }
    if (this.chunk.dict === null) this.sink?.number(days, 1);
    this.chunk.placed(4);
  }

  private putDouble(value: number): void {
    const chunk = this.chunk;
    const out = chunk.slot(chunk.dict === null ? 0 : value === 0 && 1 / value < 0 ? "-0" : value);
    if (out !== null) {
      out.f64(value);
      this.note(value);
    }
    if (chunk.dict === null) this.sink?.number(value, 1);
    chunk.placed(8);
  }

  private note(v: number): void {
    if (v !== v) return;
    if (v < this.pageMin) this.pageMin = v;
    if (v > this.pageMax) this.pageMax = v;
  }

  private bounds(min: number, max: number): Bounds {
    const out = boundsScratch;
    out.reset();
    if (this.kind === "date") {
      out.i32(min);
      out.i32(max);
    } else {
      out.f64(min === 0 ? -0 : min);
      out.f64(max === 0 ? 0 : max);
    }
    const size = out.length / 2;
    return { min: out.bytes.slice(0, size), max: out.bytes.slice(size, 2 * size) };
  }

  takePageBounds(): Bounds | null {
    const { pageMin, pageMax } = this;
    if (pageMin > pageMax) return null;
    this.pageMin = Infinity;
    this.pageMax = -Infinity;
    if (pageMin < this.min) this.min = pageMin;
    if (pageMax > this.max) this.max = pageMax;
    return this.bounds(pageMin, pageMax);
  }

  entryBounds(keys: readonly (string | number)[], count: number): Bounds | null {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      const v = key === "-0" ? -0 : (key as number);
      if (v < min) min = v;
      if (v > max) max = v;
    }
    return min > max ? null : this.bounds(min, max);
  }

  takeDigits(): null {
    return null;
  }

  takeStatistics(): Bounds | null {
    const stats = this.min > this.max ? null : this.bounds(this.min, this.max);
    this.min = Infinity;
    this.max = -Infinity;
    return stats;
  }
}

/** DECIMAL(38, 0) as FIXED_LEN_BYTE_ARRAY(16): integers past int64 that fit 38 digits. */
export class DecimalColumn implements TypedColumn {
  readonly kind: ColumnKind = "decimal";
  readonly chunk = new ColumnChunk(this, false);
  need: ColumnKind | undefined = undefined;
  /** The chunk's bounds, from its pages' (takePageBounds), and those of the values added since the page began. */
  private min = 0n;
  private max = 0n;
  private has = false;
  private pageMin = 0n;
  private pageMax = 0n;
  private pageHas = false;
  private readonly canonical: Canonical | null;
  private readonly sink: ValueSink | null;

  constructor(field: Field, sink: ValueSink | null = null) {
    this.canonical = canonicalText(field);
    this.sink = sink;
  }

  /** Cells `c` of records [from, to) of `batch`; as TypedColumn says. Read from their text: a DECIMAL value is a BigInt. */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let units = 0;
    for (let r = from; r < to; r++) {
      const text = batch.cellOf(r, c);
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      units += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return units;
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    const status = readInteger(textBytes(text), 0, text.length);
    if (status !== INTEGER_OK && status !== INTEGER_DECIMAL) return "string";
    const v = BigInt(text);
    const out = this.chunk.slot(0)!;
    out.reserve(16);
    decimalBytes(v, out.bytes, out.length);
    out.length += 16;
    if (!this.pageHas || v < this.pageMin) this.pageMin = v;
    if (!this.pageHas || v > this.pageMax) this.pageMax = v;
    this.pageHas = true;
    this.sink?.big(v, 1);
    this.chunk.placed(16);
    return undefined;
  }

  takePageBounds(): Bounds | null {
    if (!this.pageHas) return null;
    this.pageHas = false;
    if (!this.has || this.pageMin < this.min) this.min = this.pageMin;
    if (!this.has || this.pageMax > this.max) this.max = this.pageMax;
    this.has = true;
    return decimalBounds(this.pageMin, this.pageMax);
  }

  /** Never called: a DECIMAL chunk has no dictionary. */
  entryBounds(): Bounds | null {
    return null;
  }

  takeDigits(): null {
    return null;
  }

  takeStatistics(): Bounds | null {
    const stats = this.has ? decimalBounds(this.min, this.max) : null;
    this.has = false;
    return stats;
  }
}

function decimalBounds(low: bigint, high: bigint): Bounds {
  const min = new Uint8Array(16);
  const max = new Uint8Array(16);
  decimalBytes(low, min, 0);
  decimalBytes(high, max, 0);
  return { min, max };
}
