// The summary of a string column: nulls, lengths in Unicode code points (as DuckDB's `length`
// counts them), distinct values by 64-bit hash (exact, then HyperLogLog) and the most frequent
// values (exact, then Misra–Gries). One hash per cell serves both, and while the frequent-value
// counters still hold every value they are the distinct set too, so a low-cardinality column
// pays one table probe per cell; once they have purged, a cell costs a probe of each. Texts are
// keyed by a hash of their UTF-8 bytes, taken over the
// bytes the Parquet encoder writes (observeUtf8); a summary stored in format 1 keyed them by
// their UTF-16 code units, and keeps that hash when merged (docs/statistics.md, "Stored summaries").
import type { Cell } from "../../schema/cast.ts";
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { DistinctTexts } from "./distinct-texts.ts";
import { FrequentValues, type TopValue } from "./frequent.ts";
import { hashString, hashText, hashUtf8, KEY, utf16Length } from "./hash.ts";
import { TOP_VALUE_MAX_LENGTH, TOP_VALUES } from "./limits.ts";

/** How a string column's texts are keyed: their UTF-8 bytes (format 2) or UTF-16 code units (format 1). */
export type TextKeys = "utf8" | "utf16";

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
  distinct: DistinctTexts | null = null;
  /** False when the rows before these are past the distinct limit already (KeySketch.keepKeys). */
  keepDistinctKeys = true;
  frequent = new FrequentValues();
  /** How texts are keyed; every key of this summary was made the same way. */
  keys: TextKeys;
  /**
   * Set when merged with a summary keyed the other way that neither side could be keyed again
   * (both past the frequent counters' exact limit): a text on both sides may count twice in
   * `distinct`, which is then approximate without the HyperLogLog bound.
   */
  mixedKeys = false;

  constructor(keys: TextKeys = "utf8") {
    this.keys = keys;
  }

  observe(cell: Cell): void {
    if (cell === null) {
      this.nulls++;
      return;
    }
    this.observeText(typeof cell === "string" ? cell : String(cell), 1);
  }

  /** Counts `text` `count` times: a dictionary entry's cells at once. */
  observeText(text: string, count: number): void {
    this.counted(this.keys === "utf8" ? hashText(text) : hashString(text), text, count);
  }

  /**
   * Counts once the text whose UTF-8 is bytes[start, start + length) as the encoder wrote them;
   * `text` is its string when the caller has one. Without it a string is made only where the
   * frequent counters read the text (FrequentValues.addUtf8), not for every cell.
   */
  observeUtf8(bytes: Uint8Array, start: number, length: number, text?: string): void {
    if (this.keys === "utf16" || text !== undefined) {
      const read = text ?? utf8Text.decode(bytes.subarray(start, start + length));
      this.counted(this.keys === "utf8" ? hashUtf8(bytes, start, length) : hashString(read), read, 1);
      return;
    }
    const points = hashUtf8(bytes, start, length);
    this.observeKeyed(bytes, start, length, points, utf16Length(bytes, start, length, points));
  }

  /**
   * As observeUtf8, given their code points and UTF-16 code units, with the bytes' key in KEY as
   * hashUtf8 left it (the Parquet encoder's, which keys the cell once for its dictionary too):
   * nothing is hashed here. The key is read from KEY, not passed: in workerd a lane past 2^30
   * passed to a call is a heap number, an allocation per cell (docs/statistics.md, "Cost").
   */
  observeKeyed(bytes: Uint8Array, start: number, length: number, points: number, units: number): void {
    if (this.keys === "utf16") {
      const text = utf8Text.decode(bytes.subarray(start, start + length));
      this.counted(hashString(text), text, 1);
      return;
    }
    this.tally(points, 1);
    if (this.frequent.addUtf8(bytes, start, length, units)) this.purge();
  }

  /** The bytes observeUtf8 and observeKeyed were told are about to be written over (ValueSink.pageDone). */
  pageDone(): void {
    this.frequent.pageDone();
  }

  /** Counts `text`, whose key is in KEY and whose length in code points is `length`, `count` times. */
  private counted(length: number, text: string, count: number): void {
    this.tally(length, count);
    if (this.frequent.add(KEY[0]!, KEY[1]!, text, count)) this.purge();
  }

  /** Counts `count` values of `length` code points keyed by KEY, but for the frequent counters. */
  private tally(length: number, count: number): void {
    this.count += count;
    this.totalLength += length * count;
    if (length < this.minLength) this.minLength = length;
    if (length > this.maxLength) this.maxLength = length;
    this.distinct?.addKey();
  }

  /** The frequent counters are over full: the distinct set is read off them first, if not yet kept. */
  private purge(): void {
    if (this.distinct === null) {
      this.distinct = this.keysOfFrequent();
      this.distinct.keepKeys = this.keepDistinctKeys;
    }
    this.frequent.purge();
  }

  /** The distinct set read off the frequent counters, which hold every value while unpurged. */
  private keysOfFrequent(): DistinctTexts {
    const keys = new DistinctTexts(this.frequent.size);
    this.frequent.forEachKey((high, low) => keys.add(high, low));
    return keys;
  }

  distinctCount(): { distinct: number; approximate: boolean } {
    if (this.distinct === null) return { distinct: this.frequent.size, approximate: this.mixedKeys };
    return { distinct: this.distinct.distinct(), approximate: this.distinct.approximate || this.mixedKeys };
  }

  /**
   * Whether every value counted can be keyed again from its text: the frequent counters hold
   * every value (no purge) and none of their texts was cut.
   */
  private rekeyable(): boolean {
    return this.distinct === null && !this.frequent.approximate && this.frequent.everyText((text) => text.length <= TOP_VALUE_MAX_LENGTH);
  }

  /** Keys every value again the other way (only when rekeyable()). */
  private rekey(keys: TextKeys): void {
    this.keys = keys;
    this.frequent = this.frequent.rekeyed(keyer(keys));
  }

  /**
   * A copy whose frequent counters are keyed `keys` way; its distinct set is shared as it is,
   * so only a rekeyable() column's copy (whose set is its counters) is keyed through.
   */
  private keyedCopy(keys: TextKeys): StringColumn {
    const copy = new StringColumn(this.rekeyable() ? keys : this.keys);
    copy.nulls = this.nulls;
    copy.count = this.count;
    copy.minLength = this.minLength;
    copy.maxLength = this.maxLength;
    copy.totalLength = this.totalLength;
    copy.distinct = this.distinct;
    copy.frequent = this.frequent.rekeyed(keyer(keys));
    copy.mixedKeys = this.mixedKeys;
    return copy;
  }

  /**
   * Merges `given` in (it is left as it was). Summaries keyed differently (formats 1 and 2) are
   * brought to one key: the side whose values can all be keyed again from their texts is; when
   * neither can, the frequent counters are keyed again by their texts, but the distinct sets
   * hold hashes only, so a text on both sides may count twice: `distinct` is then marked
   * approximate (mixedKeys).
   */
  merge(given: StringColumn): void {
    let other = given;
    if (this.keys !== other.keys) {
      if (!other.rekeyable() && this.rekeyable()) this.rekey(other.keys);
      else {
        this.mixedKeys ||= !other.rekeyable();
        other = other.keyedCopy(this.keys);
      }
    }
    this.mixedKeys ||= other.mixedKeys;
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

  /** Reads encode()'s bytes; `keys`: how the summary's format keyed texts. */
  static decode(input: ByteReader, keys: TextKeys = "utf8"): StringColumn {
    const column = new StringColumn(keys);
    column.nulls = input.varuint();
    column.count = input.varuint();
    const minLength = input.varuint();
    const maxLength = input.varuint();
    if (column.count > 0) {
      column.minLength = minLength;
      column.maxLength = maxLength;
    }
    column.totalLength = input.varuint();
    column.distinct = input.u8() === 1 ? DistinctTexts.decode(input) : null;
    column.frequent = FrequentValues.decode(input);
    return column;
  }
}

const utf8Text = new TextDecoder();

/** What keys a text the `keys` way into KEY. */
function keyer(keys: TextKeys): (text: string) => void {
  return keys === "utf8" ? hashText : hashString;
}
