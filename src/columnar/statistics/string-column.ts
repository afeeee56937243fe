// The summary of a string column: nulls, lengths in Unicode code points (as DuckDB's `length`
// counts them), distinct values by 64-bit hash (exact, then HyperLogLog) and the most frequent
// values (exact, then Misra–Gries). One hash per cell serves both.
import type { Cell } from "../../schema/cast.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { FrequentValues, type TopValue } from "./frequent.ts";
import { hashString, KEY } from "./hash.ts";
import { KeySketch } from "./key-sketch.ts";
import { TOP_VALUES } from "./limits.ts";

export interface StringEntry {
  min_length: number | null;
  max_length: number | null;
  mean_length: number | null;
  top: TopValue[];
  top_approximate?: true;
}

export class StringColumn {
  nulls = 0;
  count = 0;
  minLength = Infinity;
  maxLength = -Infinity;
  totalLength = 0;
  distinct = new KeySketch(false);
  frequent = new FrequentValues();

  observe(cell: Cell): void {
    if (cell === null) {
      this.nulls++;
      return;
    }
    const text = typeof cell === "string" ? cell : String(cell);
    const length = hashString(text);
    const high = KEY[0]!;
    const low = KEY[1]!;
    this.count++;
    this.totalLength += length;
    if (length < this.minLength) this.minLength = length;
    if (length > this.maxLength) this.maxLength = length;
    this.distinct.add(high, low, 0);
    this.frequent.add(high, low, text);
  }

  merge(other: StringColumn): void {
    this.nulls += other.nulls;
    this.count += other.count;
    this.minLength = Math.min(this.minLength, other.minLength);
    this.maxLength = Math.max(this.maxLength, other.maxLength);
    this.totalLength += other.totalLength;
    this.distinct.merge(other.distinct);
    this.frequent.merge(other.frequent);
  }

  entry(): StringEntry {
    const some = this.count > 0;
    const entry: StringEntry = {
      min_length: some ? this.minLength : null,
      max_length: some ? this.maxLength : null,
      mean_length: some ? this.totalLength / this.count : null,
      top: this.frequent.top(TOP_VALUES),
    };
    if (this.frequent.approximate) entry.top_approximate = true;
    return entry;
  }

  encode(out: ByteWriter): void {
    out.varuint(this.nulls);
    out.varuint(this.count);
    out.varuint(this.count > 0 ? this.minLength : 0);
    out.varuint(this.count > 0 ? this.maxLength : 0);
    out.varuint(this.totalLength);
    this.distinct.encode(out);
    this.frequent.encode(out);
  }

  static decode(input: ByteReader): StringColumn {
    const column = new StringColumn();
    column.nulls = input.varuint();
    column.count = input.varuint();
    const minLength = input.varuint();
    const maxLength = input.varuint();
    if (column.count > 0) {
      column.minLength = minLength;
      column.maxLength = maxLength;
    }
    column.totalLength = input.varuint();
    column.distinct = KeySketch.decode(input, false);
    column.frequent = FrequentValues.decode(input);
    return column;
  }
}
