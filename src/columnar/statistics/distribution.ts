// The median and the equal-width histogram of a numeric column, read from its values sorted with
// their weights (exact counts, or KLL's weights past the exact limit), or from a sequence. Bins are cut at render
// time, so they follow the final [min, max] however the summaries were merged.
import { HISTOGRAM_BINS } from "./limits.ts";
import type { Sequence } from "./sequence.ts";
import { firstAtLeast } from "./sorted-run.ts";

export interface Weighted {
  values: Float64Array;
  weights: Float64Array;
}

export interface Bin {
  from: number;
  to: number;
  count: number;
}

/**
 * What the median and the histogram read of a column's values: their total weight, the weight
 * below a value, and the value at a rank. Sorted values with their weights give it by binary
 * search over cumulative weights; a sequence by arithmetic.
 */
export interface Ranks {
  total: number;
  /** The weight of the values strictly below `x`. */
  below(x: number): number;
  /** The value at 0-based rank `rank` (the first whose cumulative weight passes it). */
  at(rank: number): number;
}

/** Ranks of values sorted with their weights. */
export function weightedRanks(sorted: Weighted): Ranks {
  const { values, weights } = sorted;
  // prefix[i] is the weight of values[0 … i − 1].
  const prefix = new Float64Array(weights.length + 1);
  for (let i = 0; i < weights.length; i++) prefix[i + 1] = prefix[i]! + weights[i]!;
  return {
    total: prefix[prefix.length - 1]!,
    below(x) {
      return prefix[firstAtLeast(values, values.length, x)]!;
    },
    at(rank) {
      let lo = 0;
      let hi = values.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prefix[mid + 1]! > rank) hi = mid;
        else lo = mid + 1;
      }
      return values[lo]!;
    },
  };
}

/** Ranks of a sequence's values, each once; counts below a value set exact by comparing values (all exact integers). */
export function sequenceRanks({ first, step, count }: Sequence): Ranks {
  return {
    total: count,
    below(x) {
      let k = Math.min(count, Math.max(0, Math.ceil((x - first) / step)));
      while (k < count && first + k * step < x) k++;
      while (k > 0 && first + (k - 1) * step >= x) k--;
      return k;
    },
    at: (rank) => first + rank * step,
  };
}

/**
 * The median as DuckDB's `quantile_cont(x, 0.5)` computes it: the value at rank (n − 1) / 2,
 * interpolated between its neighbours when that rank falls between two.
 */
export function median(ranks: Ranks): number | null {
  if (ranks.total === 0) return null;
  const position = (ranks.total - 1) / 2;
  const lower = ranks.at(Math.floor(position));
  const upper = ranks.at(Math.ceil(position));
  if (lower === upper) return lower;
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return (lower + upper) / 2;
  return lower + (upper - lower) * (position - Math.floor(position));
}

/**
 * The bin edges over [low, high]: HISTOGRAM_BINS equal widths, or one bin when low equals high.
 * `whole` rounds inner edges down to whole units (days, microseconds) so they print exactly;
 * otherwise an inner edge is shortened to twelve significant digits when that barely moves it.
 */
export function binEdges(low: number, high: number, whole: boolean): number[] {
  if (low === high) return [low, high];
  const width = high / HISTOGRAM_BINS - low / HISTOGRAM_BINS;
  const edges = [low];
  for (let i = 1; i < HISTOGRAM_BINS; i++) {
    // Across nearly the whole double range i * width passes the largest double while the edge
    // itself does not: then the sum is taken at half scale.
    const direct = low + i * width;
    const edge = Number.isFinite(direct) ? direct : (low / 2 + i * (width / 2)) * 2;
    // Twelve significant digits print better and move the edge by far less than a bin's width.
    const short = Number(edge.toPrecision(12));
    edges.push(whole ? Math.floor(edge) : Math.abs(short - edge) <= width * 1e-9 ? short : edge);
  }
  edges.push(high);
  return edges;
}

/**
 * Counts per bin: a value v falls in the bin [from, to) that holds it, the last bin closed;
 * anything below the first edge (−INF) counts in the first, anything above the last (+INF) in
 * the last, so the counts add up to the total weight.
 */
export function histogram(ranks: Ranks, edges: readonly number[]): Bin[] {
  const bins: Bin[] = [];
  const last = edges.length - 2;
  let below = 0;
  for (let i = 0; i <= last; i++) {
    const upTo = i === last ? ranks.total : ranks.below(edges[i + 1]!);
    bins.push({ from: edges[i]!, to: edges[i + 1]!, count: upTo - below });
    below = upTo;
  }
  return bins;
}
