// A column's distinct values, and for numeric columns their distribution: exact (a KeyTable of
// value → count) up to EXACT_VALUES_LIMIT distinct keys, then HyperLogLog for the distinct
// count, with the keys alone kept beside it up to EXACT_DISTINCT_LIMIT (DistinctKeys) so the
// count stays exact that far, and, for numbers, a KLL sketch for ranks. Both halves merge, so an append's summary
// merges into its parent's and gives what one pass over all rows would (docs/statistics.md).
// Numbers that come as one increasing run of evenly spaced integers (row numbers, a date a day)
// are kept as that run (sequence.ts) until a value breaks it: exact at any length, three numbers
// stored. While exact, values told in batches wait, then merge into a sorted run (sorted-run.ts).
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { DistinctSketch } from "./distinct-sketch.ts";
import { addRun, addTable } from "./exact-into-kll.ts";
import { isBoxed, KEY, keyOfNumber, numberOfKey } from "./hash.ts";
import { KeyTable } from "./key-table.ts";
import { KllSketch } from "./kll.ts";
import { EXACT_VALUES_LIMIT } from "./limits.ts";
import { sortDoubles, sortSpread } from "./radix-sort.ts";
import { continues, extendSequence, joined, type Sequence } from "./sequence.ts";
import { SortedRun } from "./sorted-run.ts";

const EXACT = 0;
/** Stored mode 2: a sequence, its first value (f64), step (f64) and length (varuint). */
const SEQUENCE = 2;
/** Values addBatch holds before merging them into the run: 256 KiB, four of the feed's batches. */
const PENDING_LIMIT = 32_768;
/** Values sorted and merged at once when the waiting ones are not spread evenly: the feed's batch. */
const MERGE_PIECE = 8192;
const NO_VALUES = new Float64Array(0);
const SKETCHED = 1;
/** Stored mode 3: sketched as mode 1, then the distinct keys (DistinctKeys' stored form). */
const KEYED = 3;

export class KeySketch {
  table: KeyTable | null = new KeyTable();
  /** The double of each boxed big-integer key (hash.ts boxKey), by "high,low"; while exact. */
  big = new Map<string, number>();
  /** Once past the exact limit, the distinct count: HyperLogLog, and the keys while at most EXACT_DISTINCT_LIMIT. */
  distinctSketch: DistinctSketch | null = null;
  /** Only for a sketch with values, once past the exact limit. */
  kll: KllSketch | null = null;
  /**
   * False when the rows before these (earlier parts of the version) hold more than
   * EXACT_DISTINCT_LIMIT distinct values already: the count can only be an estimate, so no keys
   * are kept once sketched (docs/statistics.md, "Distinct keys past the table").
   */
  keepKeys = true;
  readonly withValues: boolean;
  /**
   * While exact, the distinct doubles told in batches, in order, with their counts, folded into
   * `table` only when something reads it (or sketched straight from it past the limit).
   */
  private readonly run = new SortedRun();
  /**
   * While exact, the values addBatch was told and not yet merged into the run, in any order: a
   * batch merged into a run of 100,000 moves the whole run, so they wait to be merged many
   * batches at once, after one sort.
   */
  private pending = NO_VALUES;
  private pendingSize = 0;
  /** Whether the waiting values were spread evenly enough to sort at once the last time (dealing a skewed column's again would cost a pass for nothing). */
  private spread = true;
  /**
   * While every value told so far came in batches as one increasing run of evenly spaced
   * integers (row numbers, a daily date, a reading every minute): that run, kept as three
   * numbers, exact at any length and costing one comparison a value. Null once anything else
   * came (then the run's values went into the table or sketches as if told as they came).
   */
  sequence: Sequence | null;

  /** `withValues`: the keys are numbers (a double's bits, or a boxed big integer) to rank. */
  constructor(withValues: boolean) {
    this.withValues = withValues;
    this.sequence = withValues ? { first: 0, step: 0, count: 0 } : null;
  }

  /** Leaves the sequence: its values go in as batches of MERGE_PIECE, as the feed would have told them. */
  private leaveSequence(): void {
    const sequence = this.sequence;
    if (sequence === null) return;
    this.sequence = null;
    this.addSequence(sequence);
  }

  /** Adds a sequence's values (not as a sequence) in batches of MERGE_PIECE. */
  private addSequence(sequence: Sequence): void {
    const piece = new Float64Array(Math.min(MERGE_PIECE, sequence.count));
    for (let at = 0; at < sequence.count; at += MERGE_PIECE) {
      const n = Math.min(MERGE_PIECE, sequence.count - at);
      for (let i = 0; i < n; i++) piece[i] = sequence.first + (at + i) * sequence.step;
      this.addBatch(piece, n);
    }
  }

  /** Whether nothing was counted yet (nor decoded). */
  private get empty(): boolean {
    return this.table !== null && this.table.size === 0 && this.run.size === 0 && this.pendingSize === 0 && (this.sequence === null || this.sequence.count === 0);
  }

  /** Counts the key (high, low) `count` times (once by default). */
  add(high: number, low: number, count = 1): void {
    if (this.sequence !== null) this.leaveSequence();
    const table = this.table;
    if (table !== null) {
      table.add(high, low, count);
      if (table.size + this.run.size > EXACT_VALUES_LIMIT) this.checkLimit();
      return;
    }
    this.distinctSketch!.add(high, low);
    if (this.kll !== null) {
      if (count === 1) this.kll.add(numberOfKey(high, low));
      else this.kll.addWeighted(numberOfKey(high, low), count);
    }
  }

  /**
   * Counts values[0, n), finite doubles (−0 read as 0) in any order, once each, and may reorder
   * them: while exact, kept until PENDING_LIMIT of them wait, then sorted together and merged into
   * the sorted run; after, sorted, a HyperLogLog register per run of equal values and the batch
   * into KLL at once.
   */
  addBatch(values: Float64Array, n: number): void {
    if (this.sequence !== null) {
      if (extendSequence(this.sequence, values, n)) return;
      this.leaveSequence();
    }
    if (this.table !== null) {
      if (this.pendingSize + n > this.pending.length) this.growPending(n);
      this.pending.set(values.subarray(0, n), this.pendingSize);
      this.pendingSize += n;
      if (this.pendingSize >= PENDING_LIMIT) this.settle();
      return;
    }
    const batch = values.subarray(0, n);
    sortDoubles(batch);
    this.distinctSketch!.addDoubles(batch, n);
    this.kll?.addSorted(batch, 0, n);
  }

  private growPending(n: number): void {
    const grown = new Float64Array(Math.max(this.pendingSize + n, Math.min(this.pending.length * 4, PENDING_LIMIT + n), 1024));
    grown.set(this.pending.subarray(0, this.pendingSize));
    this.pending = grown;
  }

  /**
   * Sorts the values waiting and merges them into the run. Values wait only while exact, and
   * whatever reads or sketches the run settles them first.
   */
  private settle(): void {
    const n = this.pendingSize;
    if (n === 0) return;
    this.pendingSize = 0;
    const values = this.pending.subarray(0, n);
    if (this.spread && sortSpread(values)) this.run.merge(values, n);
    else {
      this.spread = false;
      // Not spread evenly: sorted and merged a batch at a time, as the radix sort wants, and
      // sketched from the batch that passes the limit.
      for (let at = 0; at < n; at += MERGE_PIECE) {
        const piece = values.subarray(at, Math.min(n, at + MERGE_PIECE));
        if (this.table === null) {
          this.addBatch(piece, piece.length);
          continue;
        }
        sortDoubles(piece);
        this.run.merge(piece, piece.length);
        if (this.table.size + this.run.size > EXACT_VALUES_LIMIT) this.checkLimit();
      }
    }
    if (this.table !== null && this.table.size + this.run.size > EXACT_VALUES_LIMIT) this.checkLimit();
    // Sketched: nothing waits again, so the buffer goes.
    if (this.table === null) this.pending = NO_VALUES;
  }

  /** The table and the run may hold more than EXACT_VALUES_LIMIT keys: counted together, then sketched if they do. */
  private checkLimit(): void {
    this.settle();
    if (this.table === null) return;
    const table = this.table;
    if (table.size > 0 && this.run.size > 0) {
      // A few keys told one at a time (a dictionary's entries counted more than once) are looked
      // up in the run rather than the whole run folded into the table.
      if (table.size * 16 > this.run.size) this.fold();
      else if (table.size + this.run.size - this.sharedKeys() <= EXACT_VALUES_LIMIT) return;
    }
    if (this.table!.size + this.run.size > EXACT_VALUES_LIMIT) this.sketch();
  }

  /** How many of the table's keys are in the run too (a big integer's boxed key never is). */
  private sharedKeys(): number {
    const table = this.table!;
    let shared = 0;
    table.forEach((slot) => {
      const high = table.high(slot);
      if (!isBoxed(high) && this.run.has(numberOfKey(high, table.low(slot)))) shared++;
    });
    return shared;
  }

  /** Moves the run into the table (sized for it when empty), so the table holds every exact key. */
  private fold(): void {
    this.settle();
    const n = this.run.size;
    if (n === 0 || this.table === null) return;
    if (this.table.size === 0) this.table = KeyTable.sized(n);
    const table = this.table;
    const values = this.run.values;
    const counts = this.run.counts;
    for (let i = 0; i < n; i++) {
      keyOfNumber(values[i]!);
      table.add(KEY[0]!, KEY[1]!, counts[i]!);
    }
    this.run.drop();
  }

  /** Counts a big integer `count` times: its boxed key, and the double it ranks as. */
  addBig(high: number, low: number, value: number, count = 1): void {
    if (this.sequence !== null) this.leaveSequence();
    if (this.table !== null) {
      this.big.set(`${high},${low}`, value);
      this.add(high, low, count);
      return;
    }
    this.distinctSketch!.add(high, low);
    if (count === 1) this.kll?.add(value);
    else this.kll?.addWeighted(value, count);
  }

  private valueOf(high: number, low: number): number {
    return isBoxed(high) ? this.big.get(`${high},${low}`)! : numberOfKey(high, low);
  }

  /**
   * Leaves exact counting: every key into HyperLogLog and the distinct keys, every value with its
   * count into KLL.
   */
  private sketch(): void {
    const table = this.table!;
    const distinct = (this.distinctSketch = DistinctSketch.empty(this.keepKeys));
    table.forEach((slot) => distinct.add(table.high(slot), table.low(slot)));
    distinct.addDoubles(this.run.values, this.run.size);
    if (this.withValues) {
      this.kll = new KllSketch();
      addTable(this.kll, table, (high, low) => this.valueOf(high, low));
      addRun(this.kll, this.run.values, this.run.counts, this.run.size);
    }
    this.run.drop();
    this.table = null;
    this.big = new Map();
  }

  merge(other: KeySketch): void {
    const theirs = other.sequence;
    // A sequence of nothing is a sketch told nothing.
    if (theirs !== null && theirs.count === 0) return;
    const mine = this.sequence;
    if (theirs !== null && (this.empty || (mine !== null && continues(mine, theirs)))) {
      this.sequence = joined(this.empty ? null : mine, theirs);
      return;
    }
    this.leaveSequence();
    if (theirs !== null) {
      // Theirs is left as it was: its values are added here, not moved out of it.
      this.addSequence(theirs);
      return;
    }
    this.fold();
    other.fold();
    if (this.table && other.table) {
      // Add the smaller table into (a copy of) the larger: a parent absorbs an append cheaply
      // whichever side it is on.
      const [mine, theirs] = this.table.size >= other.table.size ? [this.table, other.table] : [other.table.clone(), this.table];
      this.table = mine;
      for (const [key, value] of other.big) this.big.set(key, value);
      theirs.forEach((slot) => mine.add(theirs.high(slot), theirs.low(slot), theirs.count(slot)));
      if (mine.size > EXACT_VALUES_LIMIT) this.sketch();
      return;
    }
    if (this.table) {
      // An exact side meeting a sketched one: start from a copy of the sketch and add our keys,
      // rather than building a sketch of our own and merging all 65,536 registers.
      const mine = this.table;
      const big = this.big;
      this.table = null;
      this.big = new Map();
      const distinct = (this.distinctSketch = other.distinctSketch!.copy());
      this.kll = other.kll ? other.kll.copy() : null;
      mine.forEach((slot) => distinct.add(mine.high(slot), mine.low(slot)));
      if (this.kll) addTable(this.kll, mine, (high, low) => (isBoxed(high) ? big.get(`${high},${low}`)! : numberOfKey(high, low)));
      return;
    }
    if (other.table) {
      const theirs = other.table;
      theirs.forEach((slot) => this.distinctSketch!.add(theirs.high(slot), theirs.low(slot)));
      if (this.kll) addTable(this.kll, theirs, (high, low) => other.valueOf(high, low));
      return;
    }
    this.distinctSketch!.merge(other.distinctSketch!);
    if (this.kll && other.kll) this.kll.merge(other.kll);
  }

  /** Whether the median and histogram are estimates (KLL's): past EXACT_VALUES_LIMIT. */
  get approximate(): boolean {
    if (this.sequence !== null && this.sequence.count > 0) return false;
    this.settle();
    return this.table === null;
  }

  /** Whether `distinct` is an estimate (HyperLogLog's): past EXACT_DISTINCT_LIMIT, or past the keys' knowing. */
  get distinctApproximate(): boolean {
    return this.approximate && !this.distinctSketch?.exact;
  }

  /** Whether the exact keys are all in the run (the table empty): read from it then, without folding. */
  private get onlyRun(): boolean {
    this.settle();
    return this.run.size > 0 && this.table !== null && this.table.size === 0;
  }

  distinct(): number {
    if (this.sequence !== null && this.sequence.count > 0) return this.sequence.count;
    if (this.onlyRun) return this.run.size;
    this.fold();
    if (this.table) return this.table.size;
    return this.distinctSketch!.count();
  }

  /** The values with their weights, sorted; exact counts while exact, KLL's weights after. */
  weighted(): { values: Float64Array; weights: Float64Array } {
    if (this.onlyRun) return { values: this.run.values.slice(0, this.run.size), weights: this.run.counts.slice(0, this.run.size) };
    this.fold();
    if (!this.table) return this.kll!.weighted();
    const table = this.table;
    const slots = table.occupied();
    const values = Float64Array.from(slots, (slot) => this.valueOf(table.high(slot), table.low(slot)));
    const order = slots.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
    return { values: Float64Array.from(order, (i) => values[i]!), weights: Float64Array.from(order, (i) => table.count(slots[i]!)) };
  }

  encode(out: ByteWriter): void {
    if (this.sequence !== null && this.sequence.count > 0) {
      out.u8(SEQUENCE);
      out.f64(this.sequence.first);
      out.f64(this.sequence.step);
      out.varuint(this.sequence.count);
      return;
    }
    if (this.onlyRun) {
      // Doubles only (a big integer is never in the run): the same entries as the table's, in value order.
      out.u8(EXACT);
      out.varuint(this.run.size);
      for (let i = 0; i < this.run.size; i++) {
        keyOfNumber(this.run.values[i]!);
        out.u32(KEY[0]!);
        out.u32(KEY[1]!);
        out.varuint(this.run.counts[i]!);
      }
      return;
    }
    this.fold();
    if (this.table) {
      const table = this.table;
      out.u8(EXACT);
      out.varuint(table.size);
      table.forEach((slot) => {
        const high = table.high(slot);
        out.u32(high);
        out.u32(table.low(slot));
        out.varuint(table.count(slot));
        if (this.withValues && isBoxed(high)) out.f64(this.valueOf(high, table.low(slot)));
      });
      return;
    }
    const distinct = this.distinctSketch!;
    out.u8(distinct.exact ? KEYED : SKETCHED);
    distinct.encodeRegisters(out);
    if (this.kll) this.kll.encode(out);
    distinct.encodeKeys(out);
  }

  static decode(input: ByteReader, withValues: boolean): KeySketch {
    const sketch = new KeySketch(withValues);
    const mode = input.u8();
    // A sketch read back exact or sketched stays so; only one stored as a sequence continues one.
    sketch.sequence = null;
    if (mode === SEQUENCE) {
      sketch.sequence = { first: input.f64(), step: input.f64(), count: input.varuint() };
      return sketch;
    }
    if (mode === EXACT) {
      const size = input.varuint();
      sketch.table = KeyTable.sized(size + 1);
      for (let i = 0; i < size; i++) {
        const high = input.u32();
        const low = input.u32();
        sketch.table!.add(high, low, input.varuint());
        if (withValues && isBoxed(high)) sketch.big.set(`${high},${low}`, input.f64());
      }
      return sketch;
    }
    if (mode !== SKETCHED && mode !== KEYED) throw new RangeError("statistics summary holds an unknown sketch mode");
    sketch.table = null;
    sketch.big = new Map();
    sketch.distinctSketch = DistinctSketch.decodeRegisters(input);
    if (withValues) sketch.kll = KllSketch.decode(input);
    // Mode 1 was stored past the limit, or by code that kept no keys: its count stays an estimate.
    if (mode === KEYED) sketch.distinctSketch.decodeKeys(input);
    return sketch;
  }
}
