// The column chunk of each kind: reads a cell's text (cell-values.ts), writes its PLAIN value and
// keeps min/max in Parquet's binary form. Signed order for numbers and dates, UTF-8 byte order for
// text; NaN is left out of min/max, and a zero bound is written as -0.0 (min) or +0.0 (max), as
// https://github.com/apache/parquet-format/blob/master/src/main/thrift/parquet.thrift (ColumnOrder) says.
import { castCell } from "../../schema/cast.ts";
import type { Field } from "../../schema/table-schema.ts";
import { ByteBuffer } from "./byte-buffer.ts";
import { compareText, DATETIME_INVALID, DATETIME_ZONED, decimalBytes, INTEGER_OK, INTEGER_DECIMAL, int64, readDate, readDatetime, readInteger, readNumber, readTime, setInt64 } from "./cell-values.ts";
import { ColumnChunk } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { booleanLookup, type Canonical, canonicalText } from "./field-text.ts";
import { textStatistics } from "./text-statistics.ts";

/** A column of one kind: reads cells into its chunk and keeps the chunk's min/max. */
export interface TypedColumn {
  /** The kind being written; a `timestamp` column becomes utc or local at its first value. */
  kind: ColumnKind;
  readonly chunk: ColumnChunk;
  /** Adds a cell that is not missing; undefined when written, else the kind it needs (nothing written). */
  add(text: string): ColumnKind | undefined;
  /** The chunk's statistics so far, then forgotten for the next row group. */
  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null;
}

const SAFE_HI = 1 << 21;
const NOTHING_MISSING: ReadonlySet<string> = new Set();

/** INT64 columns: integers, times of day and timestamps, each value as two 32-bit halves. */
class Int64Column implements TypedColumn {
  kind: ColumnKind;
  readonly chunk = new ColumnChunk(true);
  private has = false;
  private minLo = 0;
  private minHi = 0;
  private maxLo = 0;
  private maxHi = 0;
  private readonly canonical: Canonical | null;

  constructor(kind: ColumnKind, field: Field) {
    this.kind = kind;
    this.canonical = canonicalText(field);
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
    } else {
      const status = readDatetime(text);
      if (status === DATETIME_INVALID) return "string";
      const used = status === DATETIME_ZONED ? "timestamp-utc" : "timestamp-local";
      if (kind === "timestamp") this.kind = used;
      else if (kind !== used) return "string";
    }
    const lo = int64.lo;
    const hi = int64.hi;
    const chunk = this.chunk;
    const out = chunk.slot(chunk.dict === null ? 0 : hi >= -SAFE_HI && hi < SAFE_HI ? hi * 4294967296 + lo : `${hi}:${lo}`);
    if (out !== null) {
      out.i64(lo, hi);
      this.note(lo, hi);
    }
    chunk.placed(8);
    return undefined;
  }

  private note(lo: number, hi: number): void {
    if (!this.has) {
      this.has = true;
      this.minLo = this.maxLo = lo;
      this.minHi = this.maxHi = hi;
      return;
    }
    if (hi < this.minHi || (hi === this.minHi && lo < this.minLo)) {
      this.minHi = hi;
      this.minLo = lo;
    }
    if (hi > this.maxHi || (hi === this.maxHi && lo > this.maxLo)) {
      this.maxHi = hi;
      this.maxLo = lo;
    }
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.has) return null;
    const min = new ByteBuffer(8);
    min.i64(this.minLo, this.minHi);
    const max = new ByteBuffer(8);
    max.i64(this.maxLo, this.maxHi);
    return { min: min.copy(), max: max.copy() };
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.has = false;
  }
}

/** Numeric columns held as a JS number: DATE (INT32 days) and DOUBLE. */
class NumberColumn implements TypedColumn {
  readonly kind: ColumnKind;
  readonly chunk = new ColumnChunk(true);
  private min = Infinity;
  private max = -Infinity;
  private has = false;
  private readonly canonical: Canonical | null;

  constructor(kind: "date" | "double", field: Field) {
    this.kind = kind;
    this.canonical = canonicalText(field);
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
      chunk.placed(8);
    }
    return undefined;
  }

  private note(v: number): void {
    if (v !== v) return;
    this.has = true;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.has) return null;
    const min = new ByteBuffer(8);
    const max = new ByteBuffer(8);
    if (this.kind === "date") {
      min.i32(this.min);
      max.i32(this.max);
    } else {
      min.f64(this.min === 0 ? -0 : this.min);
      max.f64(this.max === 0 ? 0 : this.max);
    }
    return { min: min.copy(), max: max.copy() };
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.has = false;
    this.min = Infinity;
    this.max = -Infinity;
  }
}

/** BOOLEAN: PLAIN booleans are bit-packed, least significant bit first; no dictionary. */
class BooleanColumn implements TypedColumn {
  readonly kind: ColumnKind = "boolean";
  readonly chunk = new ColumnChunk(false, true);
  private sawTrue = false;
  private sawFalse = false;
  private readonly lookup: (text: string) => boolean | undefined;

  constructor(field: Field) {
    this.lookup = booleanLookup(field);
  }

  add(text: string): ColumnKind | undefined {
    const value = this.lookup(text);
    if (value === undefined) return "string";
    this.chunk.slot(0)!.u8(value ? 1 : 0);
    if (value) this.sawTrue = true;
    else this.sawFalse = true;
    this.chunk.placed(1);
    return undefined;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.sawTrue && !this.sawFalse) return null;
    return { min: Uint8Array.of(this.sawFalse ? 0 : 1), max: Uint8Array.of(this.sawTrue ? 1 : 0) };
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.sawTrue = this.sawFalse = false;
  }
}

/** DECIMAL(38, 0) as FIXED_LEN_BYTE_ARRAY(16): integers past int64 that fit 38 digits. */
class DecimalColumn implements TypedColumn {
  readonly kind: ColumnKind = "decimal";
  readonly chunk = new ColumnChunk(false);
  private min = 0n;
  private max = 0n;
  private has = false;
  private readonly canonical: Canonical | null;

  constructor(field: Field) {
    this.canonical = canonicalText(field);
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
    if (!this.has || v < this.min) this.min = v;
    if (!this.has || v > this.max) this.max = v;
    this.has = true;
    this.chunk.placed(16);
    return undefined;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.has) return null;
    const min = new Uint8Array(16);
    const max = new Uint8Array(16);
    decimalBytes(this.min, min, 0);
    decimalBytes(this.max, max, 0);
    return { min, max };
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.has = false;
  }
}

/**
 * BYTE_ARRAY UTF-8 text, dictionary-encoded while the dictionary stays small. A field of another
 * type widened to text holds the text of castCell's value (`007` in an integer field is `7`), or the
 * cell itself when it does not cast.
 */
class StringColumn implements TypedColumn {
  readonly kind: ColumnKind = "string";
  readonly chunk = new ColumnChunk(true);
  private min = "";
  private max = "";
  private has = false;
  private readonly field: Field | null;

  constructor(field: Field) {
    this.field = field.type === "string" ? null : { ...field, constraints: {} };
  }

  add(raw: string): ColumnKind | undefined {
    let text = raw;
    if (this.field !== null) {
      const cast = castCell(this.field, raw, NOTHING_MISSING);
      if (cast.ok && cast.value !== null) text = String(cast.value);
    }
    const out = this.chunk.slot(text);
    if (out !== null) {
      out.lengthPrefixedUtf8(text);
      this.note(text);
    }
    this.chunk.placed(text.length + 4);
    return undefined;
  }

  private note(v: string): void {
    if (!this.has) {
      this.has = true;
      this.min = this.max = v;
      return;
    }
    if (compareText(v, this.min) < 0) this.min = v;
    else if (compareText(v, this.max) > 0) this.max = v;
  }

  private statistics(): { min: Uint8Array; max: Uint8Array } | null {
    return this.has ? textStatistics(this.min, this.max) : null;
  }

  takeStatistics(): { min: Uint8Array; max: Uint8Array } | null {
    const stats = this.statistics();
    this.resetStatistics();
    return stats;
  }

  private resetStatistics(): void {
    this.has = false;
  }
}

/** A fresh column chunk writing `field`'s cells as `kind`. */
export function createColumn(kind: ColumnKind, field: Field): TypedColumn {
  switch (kind) {
    case "int64":
    case "time":
    case "timestamp":
    case "timestamp-utc":
    case "timestamp-local":
      return new Int64Column(kind, field);
    case "date":
    case "double":
      return new NumberColumn(kind, field);
    case "boolean":
      return new BooleanColumn(field);
    case "decimal":
      return new DecimalColumn(field);
    case "string":
      return new StringColumn(field);
  }
}
