// The numeric column chunks: INT64 (integers, times of day, timestamps), DATE and DOUBLE, and
// DECIMAL(38, 0). Each reads a cell (cell-values.ts), writes its PLAIN value and keeps min/max in
// Parquet's binary form, signed; NaN is left out and a zero bound is -0.0 (min) or +0.0 (max), as
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (ColumnOrder) says.
import type { Field } from "../../schema/table-schema.ts";
import { ByteBuffer } from "./byte-buffer.ts";
import { DATETIME_INVALID, DATETIME_ZONED, decimalBytes, INTEGER_DECIMAL, INTEGER_OK, instantDigits, int64, readDate, readDatetime, readInteger, readNumber, readTime, setInt64, setInt64Big } from "./cell-values.ts";
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

  /** Cells `c` of rows[from, to); as TypedColumn says. A copy per class, so its call to add() stays monomorphic. */
  addCells(rows: readonly (readonly string[])[], c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let bytes = 0;
    for (let r = from; r < to; r++) {
      const text = rows[r]![c] ?? "";
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return bytes;
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    const kind = this.kind;
    if (kind === "int64") {
      const status = readInteger(text);
      if (status !== INTEGER_OK) return status === INTEGER_DECIMAL ? "decimal" : "string";
    } else if (kind === "time") {
      const micros = readTime(text);
      if (micros < 0) return "string";
      setInt64(micros);
      this.noteDigits(instantDigits(text, 0, false));
    } else {
      const status = readDatetime(text);
      if (status === DATETIME_INVALID) return "string";
      const used = status === DATETIME_ZONED ? "timestamp-utc" : "timestamp-local";
      if (kind === "timestamp") this.kind = used;
      else if (kind !== used) return "string";
      this.noteDigits(instantDigits(text, 11, status === DATETIME_ZONED));
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

/** Numeric columns held as a JS number: DATE (INT32 days) and DOUBLE. */
export class NumberColumn implements TypedColumn {
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

  /** Cells `c` of rows[from, to); as TypedColumn says. A copy per class, so its call to add() stays monomorphic. */
  addCells(rows: readonly (readonly string[])[], c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let bytes = 0;
    for (let r = from; r < to; r++) {
      const text = rows[r]![c] ?? "";
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return bytes;
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    if (this.kind === "date") {
      const days = readDate(text);
      if (Number.isNaN(days)) return "string";
      const out = this.chunk.slot(days);
      if (out !== null) {
        out.i32(days);
        this.note(days);
      }
      if (this.chunk.dict === null) this.sink?.number(days, 1);
      this.chunk.placed(4);
    } else {
      const value = readNumber(text);
      if (value === undefined) return "string";
      const chunk = this.chunk;
      const out = chunk.slot(chunk.dict === null ? 0 : value === 0 && 1 / value < 0 ? "-0" : value);
      if (out !== null) {
        out.f64(value);
        this.note(value);
      }
      if (chunk.dict === null) this.sink?.number(value, 1);
      chunk.placed(8);
    }
    return undefined;
  }

  private note(v: number): void {
    if (v !== v) return;
    if (v < this.pageMin) this.pageMin = v;
    if (v > this.pageMax) this.pageMax = v;
  }

  private bounds(min: number, max: number): Bounds {
    const low = new ByteBuffer(8);
    const high = new ByteBuffer(8);
    if (this.kind === "date") {
      low.i32(min);
      high.i32(max);
    } else {
      low.f64(min === 0 ? -0 : min);
      high.f64(max === 0 ? 0 : max);
    }
    return { min: low.copy(), max: high.copy() };
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

  entryBounds(keys: readonly (string | number)[]): Bounds | null {
    let min = Infinity;
    let max = -Infinity;
    for (const key of keys) {
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

  /** Cells `c` of rows[from, to); as TypedColumn says. A copy per class, so its call to add() stays monomorphic. */
  addCells(rows: readonly (readonly string[])[], c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
    const chunk = this.chunk;
    let bytes = 0;
    for (let r = from; r < to; r++) {
      const text = rows[r]![c] ?? "";
      if (missing === null ? text === "" : missing.has(text)) {
        chunk.addNull();
        continue;
      }
      bytes += text.length;
      const need = this.add(text);
      if (need !== undefined) {
        this.need = need;
        return -1;
      }
    }
    return bytes;
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    const status = readInteger(text);
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
