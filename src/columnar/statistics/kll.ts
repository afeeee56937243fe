// A KLL quantile sketch (Karnin, Lang, Liberty 2016, "Optimal Quantile Approximation in Streams",
// arXiv:1603.05346) for numeric columns past the exact value limit: the median and histogram
// counts are read from it. Level h holds items of weight 2^h. Compaction is lazy, as in Apache
// DataSketches: only when the sketch holds more than its total capacity is the lowest level at
// or over its own capacity sorted, and every other item, from a random start, moved up. Levels
// stay sorted where they can (a compaction's output merges in linear time, a sorted batch merges
// into level 0), so a level is sorted only when items came into it out of order.
import type { ByteReader, ByteWriter } from "./bytes.ts";
import { KLL_K } from "./limits.ts";
import { sortDoubles } from "./radix-sort.ts";

const SHRINK = 2 / 3;
const MIN_CAPACITY = 8;
/**
 * Sorted items taken into a level at once before it compacts: a batch of the feed. A lower level's
 * capacity is a few hundred items, and a batch cut to that size costs a merge into the level above
 * per piece; one compaction of the whole batch moves each item up once, and fewer compactions add
 * less rank error, not more.
 */
const SORTED_PIECE = 8192;

export class KllSketch {
  /** levels[h] holds items of weight 2^h; sizes[h] of its slots are used. */
  levels: Float64Array[] = [new Float64Array(KLL_K)];
  sizes: number[] = [0];
  /** Whether a level's items are in order. */
  private sorted: boolean[] = [true];
  /** One buffer to merge a level into, swapped with that level's own: no allocation per merge, and one spare for the sketch, not one per level. */
  private spare: Float64Array = new Float64Array(0);
  private capacities: number[] = [KLL_K];
  private totalCapacity = KLL_K;
  private retained = 0;
  private random = 0x9e3779b9;

  private setCapacities(): void {
    const depth = this.levels.length;
    this.capacities = this.levels.map((_, level) => Math.max(MIN_CAPACITY, Math.ceil(KLL_K * SHRINK ** (depth - 1 - level))));
    this.totalCapacity = this.capacities.reduce((sum, capacity) => sum + capacity, 0);
  }

  add(value: number): void {
    const size = this.sizes[0]!;
    if (size === this.levels[0]!.length) this.levels[0] = grown(this.levels[0]!, size + 1);
    const items = this.levels[0]!;
    if (size > 0 && items[size - 1]! > value) this.sorted[0] = false;
    items[size] = value;
    this.sizes[0] = size + 1;
    if (++this.retained >= this.totalCapacity) this.compress();
  }

  /**
   * Adds items[from, to), which are in order, each with weight 1: merged into level 0 in linear
   * time while that level is in order, so the compactions they cause sort nothing.
   */
  addSorted(items: Float64Array, from: number, to: number): void {
    this.addSortedAt(0, items, from, to);
  }

  /**
   * Adds items[from, to), which are in order, each with weight 2^level: merged in linear time
   * into a level in order, appended to one that is not.
   */
  addSortedAt(level: number, items: Float64Array, from: number, to: number): void {
    if (to <= from) return;
    this.reach(level);
    // A long run (a part's exact values leaving exact counting, a merged sketch's level) goes in
    // SORTED_PIECE items (or a level's capacity, when larger) at a time, each compacted before the
    // next: the level's buffers then stay within a few times that instead of growing to the run's
    // length (docs/statistics.md#cost).
    const piece = Math.max(SORTED_PIECE, this.capacities[level]!);
    for (let at = from; at < to; at += piece) this.addSortedPiece(level, items, at, Math.min(to, at + piece));
  }

  private addSortedPiece(level: number, items: Float64Array, from: number, to: number): void {
    const count = to - from;
    this.reach(level);
    const old = this.levels[level]!;
    const size = this.sizes[level]!;
    // A level out of order is sorted first (it holds at most about its capacity), so a long run
    // merges with it rather than being sorted again with it at the next compaction.
    if (!this.sorted[level]) {
      sortDoubles(old.subarray(0, size));
      this.sorted[level] = true;
    }
    if (size === 0 || old[size - 1]! <= items[from]!) {
      const target = size + count <= old.length ? old : grown(old, size + count);
      target.set(items.subarray(from, to), size);
      this.levels[level] = target;
    } else {
      let merged = this.spare;
      if (merged.length < size + count) merged = new Float64Array(size + count + ((size + count) >> 1));
      let a = 0;
      let b = from;
      let out = 0;
      while (a < size && b < to) merged[out++] = old[a]! <= items[b]! ? old[a++]! : items[b++]!;
      while (a < size) merged[out++] = old[a++]!;
      while (b < to) merged[out++] = items[b++]!;
      this.levels[level] = merged;
      this.spare = old;
    }
    this.sizes[level] = size + count;
    this.retained += count;
    this.compress();
  }

  /** Adds `value` with weight `count`: one item per set bit of the count, at that bit's level. */
  addWeighted(value: number, count: number): void {
    let rest = count;
    for (let level = 0; rest > 0; level++, rest = Math.floor(rest / 2)) {
      if (rest % 2 === 1) this.push(level, value);
    }
    this.compress();
  }

  /** Makes levels up to `level` exist. */
  private reach(level: number): void {
    if (this.levels.length > level) return;
    while (this.levels.length <= level) {
      this.levels.push(new Float64Array(MIN_CAPACITY));
      this.sizes.push(0);
      this.sorted.push(true);
    }
    this.setCapacities();
  }

  private push(level: number, value: number): void {
    this.reach(level);
    const size = this.sizes[level]!;
    if (size === this.levels[level]!.length) this.levels[level] = grown(this.levels[level]!, size + 1);
    this.levels[level]![size] = value;
    this.sizes[level] = size + 1;
    this.retained++;
    if (size > 0 && this.levels[level]![size - 1]! > value) this.sorted[level] = false;
  }

  /** Halves the lowest full level into the one above until the sketch is within capacity. */
  private compress(): void {
    while (this.retained >= this.totalCapacity) {
      let level = 0;
      while (this.sizes[level]! < this.capacities[level]!) level++;
      const size = this.sizes[level]!;
      const items = this.levels[level]!.subarray(0, size);
      if (!this.sorted[level]) sortDoubles(items);
      // An odd item out stays at this level; the rest pair up and one of each pair moves up.
      const keep = size % 2;
      this.random ^= this.random << 13;
      this.random ^= this.random >>> 17;
      this.random ^= this.random << 5;
      const start = keep + ((this.random >>> 0) & 1);
      this.sizes[level] = keep;
      this.sorted[level] = true;
      this.retained -= size - keep;
      this.mergeUp(level + 1, items, start);
      // A level grown far past its capacity (a long run, or a level whose capacity shrank as the
      // sketch deepened) gives its buffer back once compacted, so what the sketch holds stays
      // a few times its capacity (docs/statistics.md, sizes).
      // The buffer given back becomes the spare when that is smaller, as mergeUp would otherwise
      // allocate one its size for the next level up.
      const capacity = Math.max(MIN_CAPACITY, this.capacities[level]!);
      const given = this.levels[level]!;
      if (given.length > 4 * capacity) {
        const fresh = new Float64Array(2 * capacity);
        if (keep === 1) fresh[0] = items[0]!;
        this.levels[level] = fresh;
        if (given.length > this.spare.length) this.spare = given;
      }
    }
  }

  /** Adds items[start], items[start + 2], … (in order) to `level`, merging when it is in order. */
  private mergeUp(level: number, items: Float64Array, start: number): void {
    const count = (items.length - start + 1) >> 1;
    if (this.levels.length <= level || !this.sorted[level]) {
      for (let i = start; i < items.length; i += 2) this.push(level, items[i]!);
      return;
    }
    const old = this.levels[level]!;
    const oldSize = this.sizes[level]!;
    let merged = this.spare;
    if (merged.length < oldSize + count) merged = new Float64Array(oldSize + count + ((oldSize + count) >> 1));
    let a = 0;
    let b = start;
    let out = 0;
    while (a < oldSize && b < items.length) merged[out++] = old[a]! <= items[b]! ? old[a++]! : ((b += 2), items[b - 2]!);
    while (a < oldSize) merged[out++] = old[a++]!;
    for (; b < items.length; b += 2) merged[out++] = items[b]!;
    this.levels[level] = merged;
    this.spare = old;
    this.sizes[level] = out;
    this.retained += count;
  }

  /** Adds every item of `other` at its level: a level in order merges in linear time, so its compactions sort nothing. */
  merge(other: KllSketch): void {
    other.levels.forEach((items, level) => {
      if (other.sorted[level]) this.addSortedAt(level, items, 0, other.sizes[level]!);
      else for (let i = 0; i < other.sizes[level]!; i++) this.push(level, items[i]!);
    });
    this.compress();
  }

  /** A sketch holding the same items, sharing nothing with this one. */
  copy(): KllSketch {
    const copy = new KllSketch();
    copy.merge(this);
    return copy;
  }

  /** Every item with its weight, sorted by value. */
  weighted(): { values: Float64Array; weights: Float64Array } {
    const values: number[] = [];
    const weights: number[] = [];
    this.levels.forEach((items, level) => {
      for (let i = 0; i < this.sizes[level]!; i++) {
        values.push(items[i]!);
        weights.push(2 ** level);
      }
    });
    const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
    return { values: Float64Array.from(order, (i) => values[i]!), weights: Float64Array.from(order, (i) => weights[i]!) };
  }

  encode(out: ByteWriter): void {
    out.varuint(this.levels.length);
    this.levels.forEach((items, level) => {
      out.varuint(this.sizes[level]!);
      for (let i = 0; i < this.sizes[level]!; i++) out.f64(items[i]!);
    });
  }

  static decode(input: ByteReader): KllSketch {
    const sketch = new KllSketch();
    const depth = input.varuint();
    for (let level = 0; level < depth; level++) {
      const size = input.varuint();
      for (let i = 0; i < size; i++) sketch.push(level, input.f64());
    }
    sketch.compress();
    return sketch;
  }
}

function grown(items: Float64Array, needed: number): Float64Array {
  const next = new Float64Array(Math.max(needed, items.length * 2));
  next.set(items);
  return next;
}
