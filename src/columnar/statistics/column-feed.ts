// Feeds a table summary from values already read, so the Parquet build describes its rows without
// casting any cell a second time (docs/statistics.md, "Cost"). The encoder reports each cell once,
// as the value it wrote: a number (a double, an integer within ±(2^53 − 1), days for a date,
// microseconds for a datetime or time), a BigInt past that, or text; a dictionary-encoded value
// once per row group with its count. A column the encoder had to keep as text although its field
// is numeric (a datetime column mixing zones, a time with an offset, an integer past 38 digits)
// reports its text, read here as castCell would type it. Finite numbers told one at a time wait
// in a batch, counted together (the summary sorts them), until the batch is full or the row
// group ends (the sink's `nulls`, told once per row group after its values).
import { isSpecialNumber } from "../../schema/lexical.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import { BooleanColumn } from "./boolean-column.ts";
import { NumericColumn } from "./numeric-column.ts";
import { StringColumn } from "./string-column.ts";
import type { ColumnSummary, TableSummary } from "./table-summary.ts";

const MICROS_PER_DAY = 86_400_000_000;
const utf8Text = new TextDecoder();
/** Numbers a feed holds before counting them: 64 KiB per numeric column. */
const BATCH = 8192;
/** The high words of the int64s within ±2^53. */
const SAFE_HIGH = 1 << 21;

/** One column's feed: what the encoder calls for each value it wrote. */
export class ColumnFeed {
  private readonly column: ColumnSummary;
  /** Finite doubles (−0 read as 0) not yet counted, made at a numeric column's first one told alone. */
  private batch: Float64Array | null = null;
  private batched = 0;

  constructor(column: ColumnSummary) {
    this.column = column;
  }

  /** `count` missing cells: told at the end of each row group, which settles the batch. */
  nulls(count: number): void {
    this.settle();
    this.column.nulls += count;
  }

  /** Counts the batch's numbers. */
  settle(): void {
    if (this.batched === 0) return;
    (this.column as NumericColumn).observeBatch(this.batch!, this.batched);
    this.batched = 0;
  }

  /** A value read as a number, `count` times. */
  number(value: number, count: number): void {
    const column = this.column;
    if (column instanceof NumericColumn) {
      if (column.type === "integer" && !Number.isSafeInteger(value) && Number.isFinite(value)) return column.observeBig(BigInt(value), count);
      // A leap second (23:59:60) is midnight, as temporal.ts reads a time.
      const read = column.type === "time" ? ((value % MICROS_PER_DAY) + MICROS_PER_DAY) % MICROS_PER_DAY : value;
      if (count === 1 && read - read === 0) {
        this.batch ??= new Float64Array(BATCH);
        this.batch[this.batched++] = read + 0;
        if (this.batched === BATCH) this.settle();
      } else column.observeNumber(read, count);
    } else this.text(String(value), count);
  }

  /**
   * Doubles values[from, to), once each, as `number(value, 1)` for each: a finite one (a number's,
   * a date's or datetime's) goes to the batch here, in one loop over the encoder's array.
   */
  doubles(values: Float64Array, from: number, to: number): void {
    if (!this.batchesAsTold()) {
      for (let i = from; i < to; i++) this.number(values[i]!, 1);
      return;
    }
    const batch = (this.batch ??= new Float64Array(BATCH));
    let n = this.batched;
    for (let i = from; i < to; i++) {
      const value = values[i]!;
      if (value - value !== 0) {
        (this.column as NumericColumn).observeNumber(value, 1);
        continue;
      }
      batch[n++] = value + 0;
      if (n === BATCH) {
        this.batched = n;
        this.settle();
        n = 0;
      }
    }
    this.batched = n;
  }

  /** Days values[from, to), once each, as doubles says. */
  days(values: Int32Array, from: number, to: number): void {
    if (!this.batchesAsTold()) {
      for (let i = from; i < to; i++) this.number(values[i]!, 1);
      return;
    }
    const batch = (this.batch ??= new Float64Array(BATCH));
    let n = this.batched;
    for (let i = from; i < to; i++) {
      batch[n++] = values[i]!;
      if (n === BATCH) {
        this.batched = n;
        this.settle();
        n = 0;
      }
    }
    this.batched = n;
  }

  /**
   * INT64 values [from, to) (value i at words[2i], low and unsigned, and words[2i + 1], high), once
   * each, as `number(value, 1)` for each within ±(2^53 − 1) and `big(value, 1)` past it.
   */
  int64s(words: Int32Array, from: number, to: number): void {
    const column = this.column;
    if (!(column instanceof NumericColumn)) {
      for (let i = from; i < to; i++) this.int64(words[2 * i]! >>> 0, words[2 * i + 1]!);
      return;
    }
    const time = column.type === "time";
    const batch = (this.batch ??= new Float64Array(BATCH));
    let n = this.batched;
    for (let i = from; i < to; i++) {
      const high = words[2 * i + 1]!;
      const low = words[2 * i]! >>> 0;
      const value = high * 4294967296 + low;
      if (!(value <= Number.MAX_SAFE_INTEGER && value >= -Number.MAX_SAFE_INTEGER)) {
        this.batched = n;
        this.int64(low, high);
        n = this.batched;
        continue;
      }
      // A leap second (23:59:60) is midnight, as temporal.ts reads a time.
      batch[n++] = time ? ((value % MICROS_PER_DAY) + MICROS_PER_DAY) % MICROS_PER_DAY : value;
      if (n === BATCH) {
        this.batched = n;
        this.settle();
        n = 0;
      }
    }
    this.batched = n;
  }

  /** Whether a finite value told once goes to the batch as it is (not an integer column's, which may be past 2^53, nor a time's, read modulo a day). */
  private batchesAsTold(): boolean {
    const column = this.column;
    return column instanceof NumericColumn && column.type !== "integer" && column.type !== "time";
  }

  /** The int64 (high, low) told once, as the encoder told it value by value. */
  private int64(low: number, high: number): void {
    if (high >= -SAFE_HIGH && high < SAFE_HIGH) this.number(high * 4294967296 + low, 1);
    else this.big((BigInt(high) << 32n) + BigInt(low), 1);
  }

  /** A value past ±(2^53 − 1), `count` times: an integer, or microseconds far from 1970. */
  big(value: bigint, count: number): void {
    const column = this.column;
    if (column instanceof NumericColumn) {
      if (column.type === "integer") column.observeBig(value, count);
      else column.observeNumber(Number(value), count);
    } else this.text(value.toString(), count);
  }

  /** Text, `count` times: a string cell, or a numeric field's cell the encoder kept as text. */
  text(text: string, count: number): void {
    const column = this.column;
    if (column instanceof StringColumn) column.observeText(text, count);
    else if (column instanceof BooleanColumn) column.observeCounts(text.toLowerCase() === "true" ? count : 0, text.toLowerCase() === "true" ? 0 : count);
    else if (column.type === "integer") {
      const value = Number(text);
      if (Number.isSafeInteger(value)) column.observeNumber(value, count);
      else column.observeText(text, count);
    } else if (column.type === "number" && !isSpecialNumber(text)) column.observeNumber(Number(text), count);
    else column.observeText(text, count);
  }

  /**
   * Text written PLAIN, as its UTF-8 bytes (and its string when the encoder had one): a string
   * column hashes the bytes and makes a string only for a text it keeps; another reads the text.
   */
  utf8(bytes: Uint8Array, start: number, length: number, text?: string): void {
    const column = this.column;
    if (column instanceof StringColumn) column.observeUtf8(bytes, start, length, text);
    else this.text(text ?? utf8Text.decode(bytes.subarray(start, start + length)), 1);
  }

  /** Text written PLAIN whose key the encoder made, in KEY (ValueSink.keyedUtf8): a string column hashes nothing. */
  keyedUtf8(bytes: Uint8Array, start: number, length: number, points: number, units: number): void {
    const column = this.column;
    if (column instanceof StringColumn) column.observeKeyed(bytes, start, length, points, units);
    else this.text(utf8Text.decode(bytes.subarray(start, start + length)), 1);
  }

  /** The bytes of the texts told since the last call are about to be written over. */
  pageDone(): void {
    if (this.column instanceof StringColumn) this.column.pageDone();
  }

  /** `trues` true and `falses` false cells. */
  booleans(trues: number, falses: number): void {
    const column = this.column;
    if (column instanceof BooleanColumn) column.observeCounts(trues, falses);
    else {
      if (trues > 0) this.text("true", trues);
      if (falses > 0) this.text("false", falses);
    }
  }

  /** The column's datetimes carry a zone (they were converted to UTC). */
  zoned(): void {
    if (this.column instanceof NumericColumn) this.column.zoned = true;
  }
}

/** A feed per field of `schema`, into `summary` (made by createSummaries for the same schema). */
export function columnFeeds(summary: TableSummary, schema: TableSchema): ColumnFeed[] {
  if (summary.columns.length !== schema.fields.length) throw new RangeError("column feeds: one summary column per field");
  return summary.columns.map((column) => new ColumnFeed(column));
}
