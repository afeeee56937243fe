// The moment a numeric column passes the exact limit, its exact values with their counts become
// KLL's items (docs/statistics.md, "The summaries"). A value counted c times is an item at each
// level h where c has bit h set (as KLL's addWeighted splits it), and each level's items go in as
// one sorted run, so no compaction sorts them again.
import type { KeyTable } from "./key-table.ts";
import type { KllSketch } from "./kll.ts";
import { sortDoubles } from "./radix-sort.ts";

/** Adds every value of an exact table (read by `valueOf`) with its count to KLL. */
export function addTable(kll: KllSketch, table: KeyTable, valueOf: (high: number, low: number) => number): void {
  const runs: Float64Array[] = [new Float64Array(table.size)];
  const lengths: number[] = [0];
  table.forEach((slot) => {
    const value = valueOf(table.high(slot), table.low(slot));
    let rest = table.count(slot);
    for (let level = 0; rest > 0; level++, rest = Math.floor(rest / 2)) {
      if (rest % 2 === 0) continue;
      while (runs.length <= level) {
        runs.push(new Float64Array(64));
        lengths.push(0);
      }
      const at = lengths[level]!++;
      if (at === runs[level]!.length) runs[level] = grown(runs[level]!);
      runs[level]![at] = value;
    }
  });
  runs.forEach((items, level) => {
    const run = items.subarray(0, lengths[level]!);
    sortDoubles(run);
    kll.addSortedAt(level, run, 0, run.length);
  });
}

/** Adds the sorted run values[0, n) with their counts to KLL, a level's items at once (in order already). */
export function addRun(kll: KllSketch, values: Float64Array, counts: Float64Array, n: number): void {
  const level = new Float64Array(n);
  for (let h = 0; ; h++) {
    let m = 0;
    let higher = false;
    for (let i = 0; i < n; i++) {
      const count = Math.floor(counts[i]! / 2 ** h);
      if (count % 2 === 1) level[m++] = values[i]!;
      if (count > 1) higher = true;
    }
    kll.addSortedAt(h, level, 0, m);
    if (!higher) return;
  }
}

function grown(items: Float64Array): Float64Array {
  const next = new Float64Array(items.length * 2);
  next.set(items);
  return next;
}
