// The summary of a string column: nulls, lengths in Unicode code points (as DuckDB's `length`
// counts them), distinct values by 64-bit hash (exact, then HyperLogLog) and the most frequent
// values (exact, then Misra–Gries). One hash per cell serves both, and while the frequent-value
// counters still hold every value they are the distinct set too, so a low-cardinality column
// pays one table probe per cell.
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
  /** Null while `frequent` holds every distinct value (before its first purge). */
  distinct: KeySketch | null = null;
  frequent = new FrequentValues();

  observe(cell: Cell): void {
    if (cell === null) {
      this.nulls++;
      return;
    }
    this.observeText(typeof cell === "string" ? cell : String(cell), 1);
  }

  /** Counts `text` `count` times: a dictionary entry's cells at once. */
  observeText(text: string, count: number): void {
    const length = hashString(text);
    const high = KEY[0]!;
    const low = KEY[1]!;
    this.count += count;
    this.totalLength += length * count;
    if (length < this.minLength) this.minLength = length;
    if (length > this.maxLength) this.maxLength = length;
    if (this.distinct !== null) this.distinct.add(high, low, count);
    if (this.frequent.add(high, low, text, count)) {
      this.distinct ??= this.keysOfFrequent();
      this.frequent.purge();
    }
  }

  /** The distinct set read off the frequent counters, which hold every value while unpurged. */
  private keysOfFrequent(): KeySketch {
    const keys = new KeySketch(false);
    this.frequent.forEachKey((high, low) => keys.add(high, low));
    return keys;
  }

  distinctCount(): { distinct: number; approximate: boolean } {
    if (this.distinct === null) return { distinct: this.frequent.size, approximate: false };
    return { distinct: this.distinct.distinct(), approximate: this.distinct.approximate };
  }

  merge(other: StringColumn): void {
    this.nulls += other.nulls;
    this.count += other.count;
    this.minLength = Math.min(this.minLength, other.minLength);
    this.maxLength = Math.max(this.maxLength, other.maxLength);
    this.totalLength += other.totalLength;
    const distinct = this.distinct ?? this.keysOfFrequent();
    distinct.merge(other.distinct ?? other.keysOfFrequent());
    this.frequent.merge(other.frequent);
    this.distinct = this.frequent.approximate ? distinct : null;
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
    out.u8(this.distinct === null ? 0 : 1);
    this.distinct?.encode(out);
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
    column.distinct = input.u8() === 1 ? KeySketch.decode(input, false) : null;
    column.frequent = FrequentValues.decode(input);
    return column;
  }
}
