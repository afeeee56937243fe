// How the dataset page prints the figures of a statistics document (docs/statistics.md): counts
// with separators, numbers to eight significant digits, dates and times as the document writes
// them, shares of the rows as percentages, and estimates said to be estimates.
import type { Scalar } from "../columnar/statistics/numeric-document.ts";

const WHOLE = new Intl.NumberFormat("en-US");
const SIGNIFICANT = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 8 });

export function formatWhole(n: number): string {
  return WHOLE.format(n);
}

/** A min, max, mean, median or bin edge: text values (dates, `INF`, big integers) as written. */
export function formatScalar(value: Scalar | undefined): string {
  if (value === null || value === undefined) return "none";
  if (typeof value === "string") return value;
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e15 || magnitude < 1e-6)) return value.toPrecision(6);
  return SIGNIFICANT.format(value);
}

/** `n` of `rows` with its share: `3 (0.3%)`; a share that rounds to 0 but is not 0 says `<0.1%`. */
export function formatShare(n: number, rows: number): string {
  if (rows === 0 || n === 0) return formatWhole(n);
  const percent = (n / rows) * 100;
  const shown = percent < 0.1 ? "<0.1" : percent >= 99.95 && n < rows ? ">99.9" : percent.toFixed(percent < 10 ? 1 : 0);
  return `${formatWhole(n)} (${shown}%)`;
}

/** A figure the document marks as an estimate. */
export function estimated(text: string, approximate: boolean | undefined): string {
  return approximate ? `about ${text}` : text;
}
