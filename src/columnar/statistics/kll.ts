// A KLL quantile sketch (Karnin, Lang, Liberty 2016, "Optimal Quantile Approximation in Streams",
// arXiv:1603.05346) for numeric columns past the exact value limit: the median and histogram
// counts are read from it. Level h holds items of weight 2^h; a full level is sorted and every
// other item, from a random start, moves up. Sketches merge level by level.
import { KLL_K } from "./limits.ts";

const SHRINK = 2 / 3;
const MIN_CAPACITY = 8;

export class KllSketch {
  /** levels[h] holds items of weight 2^h; sizes[h] of its slots are used. */
  levels: Float64Array[] = [new Float64Array(KLL_K)];
  sizes: number[] = [0];
  private random = 0x9e3779b9;

  private capacity(level: number): number {
    const depth = this.levels.length - 1 - level;
    return Math.max(MIN_CAPACITY, Math.ceil(KLL_K * SHRINK ** depth));
  }

  add(value: number): void {
    const size = this.sizes[0]!;
    if (size >= this.levels[0]!.length) this.levels[0] = grown(this.levels[0]!, size + 1);
    this.levels[0]![size] = value;
    this.sizes[0] = size + 1;
    if (size + 1 >= this.capacity(0)) this.compress();
  }

  /** Adds `value` with weight `count`, one item per bit of the count, at that bit's level. */
  addWeighted(value: number, count: number): void {
    let rest = count;
    for (let level = 0; rest > 0; level++, rest = Math.floor(rest / 2)) {
      if (rest % 2 === 1) this.push(level, value);
    }
    this.compress();
  }

  private push(level: number, value: number): void {
    while (this.levels.length <= level) {
      this.levels.push(new Float64Array(MIN_CAPACITY));
      this.sizes.push(0);
    }
    const size = this.sizes[level]!;
    if (size >= this.levels[level]!.length) this.levels[level] = grown(this.levels[level]!, size + 1);
    this.levels[level]![size] = value;
    this.sizes[level] = size + 1;
  }

  /** Compacts every level holding at least its capacity, lowest first, until none does. */
  private compress(): void {
    const depth = this.levels.length;
    for (let level = 0; level < this.levels.length; level++) {
      if (this.sizes[level]! < this.capacity(level)) continue;
      const items = this.levels[level]!.subarray(0, this.sizes[level]!).sort();
      // An odd item out stays at this level; the rest halve into the level above.
      const keep = items.length % 2;
      this.random ^= this.random << 13;
      this.random ^= this.random >>> 17;
      this.random ^= this.random << 5;
      const start = keep + ((this.random >>> 0) & 1);
      for (let i = start; i < items.length; i += 2) this.push(level + 1, items[i]!);
      this.sizes[level] = keep;
    }
    // A new top level lowers every capacity below it: check again.
    if (this.levels.length !== depth) this.compress();
  }

  merge(other: KllSketch): void {
    for (let level = 0; level < other.levels.length; level++) {
      const items = other.levels[level]!;
      for (let i = 0; i < other.sizes[level]!; i++) this.push(level, items[i]!);
    }
    this.compress();
  }

  /** Every item with its weight, sorted by value. */
  weighted(): { values: Float64Array; weights: Float64Array } {
    const total = this.sizes.reduce((sum, size) => sum + size, 0);
    const order: number[] = [];
    const values = new Float64Array(total);
    const weights = new Float64Array(total);
    let at = 0;
    this.levels.forEach((items, level) => {
      for (let i = 0; i < this.sizes[level]!; i++, at++) {
        values[at] = items[i]!;
        weights[at] = 2 ** level;
        order.push(at);
      }
    });
    order.sort((a, b) => values[a]! - values[b]! || a - b);
    return { values: Float64Array.from(order, (i) => values[i]!), weights: Float64Array.from(order, (i) => weights[i]!) };
  }
}

function grown(items: Float64Array, needed: number): Float64Array {
  const next = new Float64Array(Math.max(needed, items.length * 2));
  next.set(items);
  return next;
}
