// The summary of an integer, number, date, datetime or time column: nulls, NaN and infinities
// counted, exact min and max (big integers as BigInt), mean and variance for integers and
// numbers, and every value with its count in a KeySketch for distinct, median and histogram.
import type { Cell } from "../../schema/cast.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { boxKey, hashString, KEY, keyOfNumber } from "./hash.ts";
import { KeySketch } from "./key-sketch.ts";
import { Moments } from "./moments.ts";
import { lastZoned, parseDate, parseDatetime, parseTime } from "./temporal.ts";

export type NumericType = "integer" | "number" | "date" | "datetime" | "time";

export class NumericColumn {
  readonly type: NumericType;
  nulls = 0;
  nan = 0;
  positiveInfinities = 0;
  negativeInfinities = 0;
  /** Smallest and largest finite value read as a double (a big integer by its nearest double). */
  low = Infinity;
  high = -Infinity;
  /** Exact extremes among the integers past ±(2^53 − 1), which arrive as text. */
  bigLow: bigint | null = null;
  bigHigh: bigint | null = null;
  /** Whether any datetime or time carried a zone: the column's values are then printed in UTC. */
  zoned = false;
  moments = new Moments();
  values = new KeySketch(true);

  constructor(type: NumericType) {
    this.type = type;
  }

  observe(cell: Cell): void {
    if (cell === null) {
      this.nulls++;
      return;
    }
    if (typeof cell === "number") return this.observeNumber(cell, 1);
    if (typeof cell === "string") this.observeText(cell, 1);
  }

  /**
   * Counts a value `count` times: a double for integers within ±(2^53 − 1) and numbers, days for
   * dates, microseconds for datetimes and times (as temporal.ts reads them).
   */
  observeNumber(cell: number, count: number): void {
    const value = cell + 0;
    // NaN and ±Infinity as numbers (castCell gives them as text, a typed reader may not).
    if (value - value !== 0) return this.observeSpecial(value, count);
    if (value < this.low) this.low = value;
    if (value > this.high) this.high = value;
    if (this.type === "integer" || this.type === "number") this.moments.addWeighted(value, count);
    keyOfNumber(value);
    this.values.add(KEY[0]!, KEY[1]!, count);
  }

  /**
   * Counts values[0, n), finite doubles with −0 read as 0 (as observeNumber reads them), once
   * each, and may reorder them: a batch from the encoder's feed.
   */
  observeBatch(values: Float64Array, n: number): void {
    if (n === 0) return;
    let low = this.low;
    let high = this.high;
    for (let i = 0; i < n; i++) {
      const value = values[i]!;
      if (value < low) low = value;
      if (value > high) high = value;
    }
    this.low = low;
    this.high = high;
    if (this.type === "integer" || this.type === "number") this.moments.addBatch(values, n);
    this.values.addBatch(values, n);
  }

  /** Counts an integer past ±(2^53 − 1) `count` times: exact extremes, keyed by its digits. */
  observeBig(big: bigint, count: number): void {
    const value = Number(big);
    if (this.bigLow === null || big < this.bigLow) this.bigLow = big;
    if (this.bigHigh === null || big > this.bigHigh) this.bigHigh = big;
    this.moments.addWeighted(value, count);
    // Keyed by its digits: neighbours past 2^53 share a double but stay distinct.
    hashString(big.toString());
    boxKey();
    this.values.addBig(KEY[0]!, KEY[1]!, value, count);
    if (value < this.low) this.low = value;
    if (value > this.high) this.high = value;
  }

  /** Text in a numeric column, `count` times: a big integer, NaN or ±INF, or a date, datetime or time. */
  observeText(text: string, count: number): void {
    let value: number;
    switch (this.type) {
      case "integer":
        if (!/^[+-]?\d+$/.test(text)) throw notOfType(text, this.type);
        return this.observeBig(BigInt(text), count);
      case "number":
        value = text === "INF" ? Infinity : text === "-INF" ? -Infinity : Number(text);
        if (value - value !== 0) return this.observeSpecial(value, count);
        if (text !== "NaN" && Number.isNaN(value)) throw notOfType(text, this.type);
        return this.observeNumber(value, count);
      case "date":
        value = parseDate(text);
        break;
      case "datetime":
        value = parseDatetime(text);
        if (lastZoned) this.zoned = true;
        break;
      case "time":
        value = parseTime(text);
        if (lastZoned) this.zoned = true;
        break;
    }
    if (Number.isNaN(value)) throw notOfType(text, this.type);
    if (value < this.low) this.low = value;
    if (value > this.high) this.high = value;
    keyOfNumber(value);
    this.values.add(KEY[0]!, KEY[1]!, count);
  }

  /** NaN is counted apart; an infinity is a value, outside the moments. */
  private observeSpecial(value: number, count: number): void {
    if (Number.isNaN(value)) {
      this.nan += count;
      return;
    }
    if (value > 0) this.positiveInfinities += count;
    else this.negativeInfinities += count;
    keyOfNumber(value);
    this.values.add(KEY[0]!, KEY[1]!, count);
  }

  merge(other: NumericColumn): void {
    this.nulls += other.nulls;
    this.nan += other.nan;
    this.positiveInfinities += other.positiveInfinities;
    this.negativeInfinities += other.negativeInfinities;
    this.low = Math.min(this.low, other.low);
    this.high = Math.max(this.high, other.high);
    if (other.bigLow !== null && (this.bigLow === null || other.bigLow < this.bigLow)) this.bigLow = other.bigLow;
    if (other.bigHigh !== null && (this.bigHigh === null || other.bigHigh > this.bigHigh)) this.bigHigh = other.bigHigh;
    this.zoned ||= other.zoned;
    this.moments.merge(other.moments);
    this.values.merge(other.values);
  }

  encode(out: ByteWriter): void {
    out.varuint(this.nulls);
    out.varuint(this.nan);
    out.varuint(this.positiveInfinities);
    out.varuint(this.negativeInfinities);
    out.f64(this.low);
    out.f64(this.high);
    out.text(this.bigLow === null ? "" : this.bigLow.toString());
    out.text(this.bigHigh === null ? "" : this.bigHigh.toString());
    out.u8(this.zoned ? 1 : 0);
    this.moments.encode(out);
    this.values.encode(out);
  }

  static decode(input: ByteReader, type: NumericType): NumericColumn {
    const column = new NumericColumn(type);
    column.nulls = input.varuint();
    column.nan = input.varuint();
    column.positiveInfinities = input.varuint();
    column.negativeInfinities = input.varuint();
    column.low = input.f64();
    column.high = input.f64();
    const bigLow = input.text();
    const bigHigh = input.text();
    column.bigLow = bigLow === "" ? null : BigInt(bigLow);
    column.bigHigh = bigHigh === "" ? null : BigInt(bigHigh);
    column.zoned = input.u8() === 1;
    column.moments = Moments.decode(input);
    column.values = KeySketch.decode(input, true);
    return column;
  }
}

/** A cell castCell would not have given for the column: the rows were not cast by its schema. */
function notOfType(text: string, type: NumericType): RangeError {
  return new RangeError(`statistics: ${JSON.stringify(text.slice(0, 40))} is not a cast ${type} cell`);
}
