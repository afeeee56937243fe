// While a numeric column is exact, the distinct doubles it was told in batches, in order, with
// their counts: each sorted batch merges in in linear time instead of a table probe per value
// (docs/statistics.md, "Cost"). KeySketch owns when batches merge and when the run is folded into
// its table or sketched.
import { EXACT_VALUES_LIMIT } from "./limits.ts";

const NONE = new Float64Array(0);

export class SortedRun {
  /** values[0, size) ascending, each once; counts[i] how many times values[i] was told. */
  values = NONE;
  counts = NONE;
  size = 0;

  /**
   * Merges the sorted batch batch[0, n) in, a run of equal values as one entry. In place, from
   * the back: the arrays are the only ones the run holds (no second pair to merge into), grown by
   * doubling up to the exact limit and a batch, so a column's run stays within 16 bytes a key of
   * EXACT_VALUES_LIMIT plus a batch.
   */
  merge(batch: Float64Array, n: number): void {
    const size = this.size;
    if (this.values.length < size + n) {
      const capacity = Math.max(size + n, Math.min(this.values.length * 2, EXACT_VALUES_LIMIT + n), 1024);
      const grownValues = new Float64Array(capacity);
      const grownCounts = new Float64Array(capacity);
      grownValues.set(this.values.subarray(0, size));
      grownCounts.set(this.counts.subarray(0, size));
      this.values = grownValues;
      this.counts = grownCounts;
    }
    const values = this.values;
    const counts = this.counts;
    // Written downwards from size + n: `out` stays above the old entries not yet moved, as at
    // least one slot is left for each batch value not yet merged.
    let a = size - 1;
    let b = n - 1;
    let out = size + n;
    while (b >= 0) {
      const value = batch[b]!;
      let start = b - 1;
      while (start >= 0 && batch[start] === value) start--;
      while (a >= 0 && values[a]! > value) {
        out--;
        values[out] = values[a]!;
        counts[out] = counts[a--]!;
      }
      out--;
      values[out] = value;
      counts[out] = a >= 0 && values[a] === value ? counts[a--]! + (b - start) : b - start;
      b = start;
    }
    // Old entries [0, a] are in place; the merged ones [out, size + n) close the gap equal values left.
    if (out > a + 1) {
      values.copyWithin(a + 1, out, size + n);
      counts.copyWithin(a + 1, out, size + n);
    }
    this.size = a + 1 + size + n - out;
  }

  /** Whether `value` is in the run. */
  has(value: number): boolean {
    const at = firstAtLeast(this.values, this.size, value);
    return at < this.size && this.values[at] === value;
  }

  /** Lets the run go. */
  drop(): void {
    this.size = 0;
    this.values = this.counts = NONE;
  }
}

/** The index of the first of sorted[0, size) not below `x` (size when every one is): a binary search. */
export function firstAtLeast(sorted: Float64Array, size: number, x: number): number {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
