// The statistics entry of a numeric column (docs/statistics.md): min, max, histogram, and for
// integers and numbers mean, std and median. Values JSON cannot carry are text, as `/rows` writes
// them: big integers as their digits, infinities as `INF` / `-INF`, NaN as `NaN`.
import { binEdges, histogram, median, sequenceRanks, weightedRanks, type Bin } from "./distribution.ts";
import type { NumericColumn } from "./numeric-column.ts";
import { formatDate, formatDatetime, formatTime } from "./temporal.ts";

export type Scalar = number | string | null;

export interface NumericEntry {
  min: Scalar;
  max: Scalar;
  mean?: Scalar;
  std?: Scalar;
  median?: Scalar;
  histogram: { from: Scalar; to: Scalar; count: number }[];
  approximate?: true;
  nan?: number;
}

/** A double as JSON: a number when finite, else its text. */
function numberText(value: number): Scalar {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "INF";
  if (value === -Infinity) return "-INF";
  return value;
}

function printer(column: NumericColumn): (value: number) => Scalar {
  switch (column.type) {
    case "date":
      return formatDate;
    case "datetime":
      return (value) => formatDatetime(value, column.zoned);
    case "time":
      return (value) => formatTime(value, column.zoned);
    default:
      return numberText;
  }
}

function extremes(column: NumericColumn, print: (value: number) => Scalar): { min: Scalar; max: Scalar } {
  const hasFinite = column.low <= column.high;
  let min: Scalar = column.negativeInfinities > 0 ? "-INF" : hasFinite ? print(column.low) : column.positiveInfinities > 0 ? "INF" : null;
  let max: Scalar = column.positiveInfinities > 0 ? "INF" : hasFinite ? print(column.high) : column.negativeInfinities > 0 ? "-INF" : null;
  // A big integer is the extreme when it lies beyond every safe one (column.low/high hold its double).
  if (column.bigLow !== null && (column.bigLow < 0n || Number(column.bigLow) <= column.low)) min = column.bigLow.toString();
  if (column.bigHigh !== null && (column.bigHigh > 0n || Number(column.bigHigh) >= column.high)) max = column.bigHigh.toString();
  return { min, max };
}

function mean(column: NumericColumn): { mean: Scalar; std: Scalar } {
  const { positiveInfinities: up, negativeInfinities: down } = column;
  if (up > 0 || down > 0) return { mean: up > 0 && down > 0 ? "NaN" : up > 0 ? "INF" : "-INF", std: "NaN" };
  if (column.moments.count === 0) return { mean: null, std: null };
  return { mean: column.moments.average(), std: column.moments.std() };
}

export function numericEntry(column: NumericColumn): NumericEntry {
  const print = printer(column);
  const whole = column.type === "date" || column.type === "datetime" || column.type === "time";
  // A sequence (row numbers, a daily date) is read off its first value and step, exactly.
  const sequence = column.values.sequence;
  const ranks = sequence !== null && sequence.count > 0 ? sequenceRanks(sequence) : weightedRanks(column.values.weighted());
  const bins: Bin[] = column.low <= column.high ? histogram(ranks, binEdges(column.low, column.high, whole)) : [];
  const middle = median(ranks);
  const moments = column.type === "integer" || column.type === "number" ? { ...mean(column), median: middle === null ? null : numberText(middle) } : {};
  const entry: NumericEntry = {
    ...extremes(column, print),
    ...moments,
    histogram: bins.map((bin) => ({ from: print(bin.from), to: print(bin.to), count: bin.count })),
  };
  if (column.values.approximate) entry.approximate = true;
  if (column.type === "number") entry.nan = column.nan;
  return entry;
}
