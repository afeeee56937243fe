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

const SAFE_HI = 1 << 21;
const NOTHING_MISSING: ReadonlySet<string> = new Set();

/** INT64 columns: integers, times of day and timestamps, each value as two 32-bit halves. */
class Int64Column extends ColumnChunk {
  private lo = 0;
  private hi = 0;
  private has = false;
  private minLo = 0;
  private minHi = 0;
  private maxLo = 0;
  private maxHi = 0;
  private readonly canonical: Canonical | null;

  constructor(kind: ColumnKind, field: Field) {
    super(kind, true);
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
    this.lo = int64.lo;
    this.hi = int64.hi;
    this.put(this.dict === null ? 0 : this.hi >= -SAFE_HI && this.hi < SAFE_HI ? this.hi * 4294967296 + this.lo : `${this.hi}:${this.lo}`, 8);
    return undefined;
  }

  protected writeValue(out: ByteBuffer): void {
    out.i64(this.lo, this.hi);
  }

  protected noteValue(): void {
    const { lo, hi } = this;
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

  protected statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.has) return null;
    const min = new ByteBuffer(8);
    min.i64(this.minLo, this.minHi);
    const max = new ByteBuffer(8);
    max.i64(this.maxLo, this.maxHi);
    return { min: min.copy(), max: max.copy() };
  }

  protected resetStatistics(): void {
    this.has = false;
  }
}

/** Numeric columns held as a JS number: DATE (INT32 days) and DOUBLE. */
class NumberColumn extends ColumnChunk {
  private value = 0;
  private min = Infinity;
  private max = -Infinity;
  private has = false;
  private readonly canonical: Canonical | null;

  constructor(kind: "date" | "double", field: Field) {
    super(kind, true);
    this.canonical = canonicalText(field);
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    if (this.kind === "date") {
      const days = readDate(text);
      if (Number.isNaN(days)) return "string";
      this.value = days;
      this.put(days, 4);
    } else {
      const value = readNumber(text);
      if (value === undefined) return "string";
      this.value = value;
      this.put(this.dict === null ? 0 : value === 0 && 1 / value < 0 ? "-0" : value, 8);
    }
    return undefined;
  }

  protected writeValue(out: ByteBuffer): void {
    if (this.kind === "date") out.i32(this.value);
    else out.f64(this.value);
  }

  protected noteValue(): void {
    const v = this.value;
    if (v !== v) return;
    this.has = true;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  protected statistics(): { min: Uint8Array; max: Uint8Array } | null {
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

  protected resetStatistics(): void {
    this.has = false;
    this.min = Infinity;
    this.max = -Infinity;
  }
}

/** BOOLEAN: PLAIN booleans are bit-packed, least significant bit first; no dictionary. */
class BooleanColumn extends ColumnChunk {
  private value = false;
  private sawTrue = false;
  private sawFalse = false;
  private readonly lookup: (text: string) => boolean | undefined;

  constructor(field: Field) {
    super("boolean", false);
    this.lookup = booleanLookup(field);
  }

  add(text: string): ColumnKind | undefined {
    const value = this.lookup(text);
    if (value === undefined) return "string";
    this.value = value;
    this.put(0, 1);
    return undefined;
  }

  protected writeValue(out: ByteBuffer): void {
    out.u8(this.value ? 1 : 0);
  }

  protected noteValue(): void {
    if (this.value) this.sawTrue = true;
    else this.sawFalse = true;
  }

  protected override pageValues(out: ByteBuffer): void {
    const bits = this.values.bytes;
    const n = this.values.length;
    out.reserve((n + 7) >> 3);
    for (let i = 0; i < n; i += 8) {
      let byte = 0;
      for (let k = 0; k < 8 && i + k < n; k++) byte |= bits[i + k]! << k;
      out.bytes[out.length++] = byte;
    }
  }

  protected statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.sawTrue && !this.sawFalse) return null;
    return { min: Uint8Array.of(this.sawFalse ? 0 : 1), max: Uint8Array.of(this.sawTrue ? 1 : 0) };
  }

  protected resetStatistics(): void {
    this.sawTrue = this.sawFalse = false;
  }
}

/** DECIMAL(38, 0) as FIXED_LEN_BYTE_ARRAY(16): integers past int64 that fit 38 digits. */
class DecimalColumn extends ColumnChunk {
  private value = 0n;
  private min = 0n;
  private max = 0n;
  private has = false;
  private readonly canonical: Canonical | null;

  constructor(field: Field) {
    super("decimal", false);
    this.canonical = canonicalText(field);
  }

  add(raw: string): ColumnKind | undefined {
    const text = this.canonical === null ? raw : this.canonical(raw);
    if (text === undefined) return "string";
    const status = readInteger(text);
    if (status !== INTEGER_OK && status !== INTEGER_DECIMAL) return "string";
    this.value = BigInt(text);
    this.put(0, 16);
    return undefined;
  }

  protected writeValue(out: ByteBuffer): void {
    out.reserve(16);
    decimalBytes(this.value, out.bytes, out.length);
    out.length += 16;
  }

  protected noteValue(): void {
    const v = this.value;
    if (!this.has || v < this.min) this.min = v;
    if (!this.has || v > this.max) this.max = v;
    this.has = true;
  }

  protected statistics(): { min: Uint8Array; max: Uint8Array } | null {
    if (!this.has) return null;
    const min = new Uint8Array(16);
    const max = new Uint8Array(16);
    decimalBytes(this.min, min, 0);
    decimalBytes(this.max, max, 0);
    return { min, max };
  }

  protected resetStatistics(): void {
    this.has = false;
  }
}

/**
 * BYTE_ARRAY UTF-8 text, dictionary-encoded while the dictionary stays small. A field of another
 * type widened to text holds the text of castCell's value (`007` in an integer field is `7`), or the
 * cell itself when it does not cast.
 */
class StringColumn extends ColumnChunk {
  private value = "";
  private min = "";
  private max = "";
  private has = false;
  private readonly field: Field | null;

  constructor(field: Field) {
    super("string", true);
    this.field = field.type === "string" ? null : { ...field, constraints: {} };
  }

  add(raw: string): ColumnKind | undefined {
    let text = raw;
    if (this.field !== null) {
      const cast = castCell(this.field, raw, NOTHING_MISSING);
      if (cast.ok && cast.value !== null) text = String(cast.value);
    }
    this.value = text;
    this.put(text, text.length + 4);
    return undefined;
  }

  protected writeValue(out: ByteBuffer): void {
    out.lengthPrefixedUtf8(this.value);
  }

  protected noteValue(): void {
    const v = this.value;
    if (!this.has) {
      this.has = true;
      this.min = this.max = v;
      return;
    }
    if (compareText(v, this.min) < 0) this.min = v;
    else if (compareText(v, this.max) > 0) this.max = v;
  }

  protected statistics(): { min: Uint8Array; max: Uint8Array } | null {
    return this.has ? textStatistics(this.min, this.max) : null;
  }

  protected resetStatistics(): void {
    this.has = false;
  }
}

/** A fresh column chunk writing `field`'s cells as `kind`. */
export function createColumn(kind: ColumnKind, field: Field): ColumnChunk {
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
