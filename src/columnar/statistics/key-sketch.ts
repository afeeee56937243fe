// A column's distinct values, and for numeric columns their distribution: exact (a KeyTable of
// value → count) up to EXACT_DISTINCT_LIMIT distinct keys, then HyperLogLog for the distinct
// count and, for numbers, a KLL sketch for ranks. Both halves merge, so an append's summary
// merges into its parent's and gives what one pass over all rows would (docs/statistics.md).
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { KEY, keyOfNumber, numberOfKey } from "./hash.ts";
import { HLL_REGISTERS, HyperLogLog } from "./hyperloglog.ts";
import { KeyTable } from "./key-table.ts";
import { KllSketch } from "./kll.ts";
import { EXACT_DISTINCT_LIMIT } from "./limits.ts";

const EXACT = 0;
const SKETCHED = 1;

export class KeySketch {
  table: KeyTable | null;
  hll: HyperLogLog | null = null;
  /** Only for a sketch with values, once past the exact limit. */
  kll: KllSketch | null = null;

  readonly withValues: boolean;

  constructor(withValues: boolean) {
    this.withValues = withValues;
    this.table = new KeyTable(withValues);
  }

  /** Counts the key (high, low) once; `value` is the number it stands for when withValues. */
  add(high: number, low: number, value: number): void {
    const table = this.table;
    if (table) {
      table.add(high, low, 1, value);
      if (table.size > EXACT_DISTINCT_LIMIT) this.sketch();
      return;
    }
    this.hll!.add(high, low);
    if (this.kll) this.kll.add(value);
  }

  /** Leaves exact counting: every key into HyperLogLog, every value with its count into KLL. */
  private sketch(): void {
    const table = this.table!;
    this.hll = new HyperLogLog();
    if (this.withValues) this.kll = new KllSketch();
    table.forEach((slot) => {
      this.hll!.add(table.high[slot]!, table.low[slot]!);
      if (this.kll) this.kll.addWeighted(table.values![slot]!, table.counts[slot]!);
    });
    this.table = null;
  }

  merge(other: KeySketch): void {
    if (this.table && other.table) {
      // Add the smaller table into (a copy of) the larger: a parent absorbs an append cheaply
      // whichever side it is on.
      const [mine, theirs] = this.table.size >= other.table.size ? [this.table, other.table] : [other.table.clone(), this.table];
      this.table = mine;
      theirs.forEach((slot) => mine.add(theirs.high[slot]!, theirs.low[slot]!, theirs.counts[slot]!, theirs.values ? theirs.values[slot]! : 0));
      if (mine.size > EXACT_DISTINCT_LIMIT) this.sketch();
      return;
    }
    if (this.table) this.sketch();
    if (other.table) {
      const theirs = other.table;
      theirs.forEach((slot) => {
        this.hll!.add(theirs.high[slot]!, theirs.low[slot]!);
        if (this.kll) this.kll.addWeighted(theirs.values![slot]!, theirs.counts[slot]!);
      });
      return;
    }
    this.hll!.merge(other.hll!);
    if (this.kll && other.kll) this.kll.merge(other.kll);
  }

  get approximate(): boolean {
    return this.table === null;
  }

  distinct(): number {
    return this.table ? this.table.size : this.hll!.estimate();
  }

  /** The values with their weights, sorted; exact counts while exact, KLL's weights after. */
  weighted(): { values: Float64Array; weights: Float64Array } {
    if (!this.table) return this.kll!.weighted();
    const table = this.table;
    const slots = table.occupied().sort((a, b) => table.values![a]! - table.values![b]! || a - b);
    return { values: Float64Array.from(slots, (s) => table.values![s]!), weights: Float64Array.from(slots, (s) => table.counts[s]!) };
  }

  encode(out: ByteWriter): void {
    if (this.table) {
      const table = this.table;
      out.u8(EXACT);
      out.varuint(table.size);
      table.forEach((slot) => {
        const high = table.high[slot]!;
        const low = table.low[slot]!;
        if (!table.values) {
          out.u32(high);
          out.u32(low);
          return;
        }
        // A number keyed by its own bits needs only the number; a big integer keeps its key too.
        const value = table.values[slot]!;
        const ownBits = numberOfKey(high, low) === value && !Number.isNaN(value);
        out.f64(value);
        out.varuint(table.counts[slot]! * 2 + (ownBits ? 0 : 1));
        if (!ownBits) {
          out.u32(high);
          out.u32(low);
        }
      });
      return;
    }
    out.u8(SKETCHED);
    out.raw(this.hll!.registers);
    if (this.kll) {
      out.varuint(this.kll.levels.length);
      this.kll.levels.forEach((items, level) => {
        out.varuint(this.kll!.sizes[level]!);
        for (let i = 0; i < this.kll!.sizes[level]!; i++) out.f64(items[i]!);
      });
    }
  }

  static decode(input: ByteReader, withValues: boolean): KeySketch {
    const sketch = new KeySketch(withValues);
    const mode = input.u8();
    if (mode === EXACT) {
      const table = sketch.table!;
      const size = input.varuint();
      for (let i = 0; i < size; i++) {
        if (!withValues) {
          table.add(input.u32(), input.u32(), 1, 0);
          continue;
        }
        const value = input.f64();
        const tagged = input.varuint();
        const count = Math.floor(tagged / 2);
        if (tagged % 2 === 0) {
          keyOfNumber(value);
          table.add(KEY[0]!, KEY[1]!, count, value);
        } else table.add(input.u32(), input.u32(), count, value);
      }
      return sketch;
    }
    if (mode !== SKETCHED) throw new RangeError("statistics summary holds an unknown sketch mode");
    sketch.table = null;
    sketch.hll = new HyperLogLog(input.raw(HLL_REGISTERS));
    if (withValues) {
      const kll = new KllSketch();
      const depth = input.varuint();
      kll.levels = [];
      kll.sizes = [];
      for (let level = 0; level < depth; level++) {
        const size = input.varuint();
        const items = new Float64Array(Math.max(size, 8));
        for (let i = 0; i < size; i++) items[i] = input.f64();
        kll.levels.push(items);
        kll.sizes.push(size);
      }
      sketch.kll = kll;
    }
    return sketch;
  }
}
