// A numeric column whose values come as one increasing run of evenly spaced integers (row
// numbers, a daily date) is summarised as that run: every figure exact at any length, stored as
// three numbers, and carried on by appends that continue it (docs/statistics.md, "The
// summaries"). Anything else that comes puts the run's values into the exact table or the
// sketches as if they had come one by one; the figures are then held to their usual bounds.
import { describe, expect, it } from "vitest";
import { binEdges } from "../../src/columnar/statistics/distribution.ts";
import { statisticsDocument, type ColumnStatistics } from "../../src/columnar/statistics/document.ts";
import { NumericColumn } from "../../src/columnar/statistics/numeric-column.ts";
import { decodeSummary, encodeSummary, mergeSummaries, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { partSummary } from "../helpers/part-summary.ts";

type Entry = ColumnStatistics & Record<string, unknown>;

const schema: TableSchema = {
  fields: [
    { name: "row", type: "integer" },
    { name: "day", type: "date" },
    { name: "reading", type: "number" },
  ],
  missingValues: [""],
};

const DAY_MS = 86_400_000;
/** 1700-01-01 in days since 1970: the dates start before 1970 and run past it. */
const FIRST_DAY = Math.round(Date.UTC(1700, 0, 1) / DAY_MS);
const dateText = (days: number) => new Date(days * DAY_MS).toISOString().slice(0, 10);

/** Rows for row numbers `rows` (each the day that many days after FIRST_DAY, and a reading of `reading(i)`). */
function table(rows: readonly number[], reading: (i: number) => string = (i) => String(10 * i - 5)): string[][] {
  return rows.map((row) => [String(row), dateText(FIRST_DAY + row), reading(row)]);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The rows' summary as the Parquet build makes it, stored and read back. */
const summarise = (rows: string[][]): TableSummary => partSummary(schema, rows);

function sequenceOf(summary: TableSummary, column: number) {
  return (summary.columns[column] as NumericColumn).values.sequence;
}

/** Column `c`'s histogram counts as counted here from `values` over the document's own edges (binEdges). */
function binCounts(values: readonly number[], whole: boolean): number[] {
  const low = values.reduce((a, b) => Math.min(a, b));
  const high = values.reduce((a, b) => Math.max(a, b));
  const edges = binEdges(low, high, whole);
  const counts = new Array<number>(edges.length - 1).fill(0);
  for (const value of values) {
    let bin = 0;
    while (bin < counts.length - 1 && value >= edges[bin + 1]!) bin++;
    counts[bin]!++;
  }
  return counts;
}

/** The exact median as DuckDB's quantile_cont(x, 0.5) reads it. */
function exactMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) / 2;
  const lower = sorted[Math.floor(position)]!;
  const upper = sorted[Math.ceil(position)]!;
  return lower + (upper - lower) * (position - Math.floor(position));
}

/** Every figure of the row and day columns exactly as counted from `rows` (row numbers). */
function expectExact(summary: TableSummary, rows: readonly number[]): void {
  const document = statisticsDocument(schema, summary);
  const row = document.columns[0] as Entry;
  const day = document.columns[1] as Entry;
  const distinct = new Set(rows).size;
  for (const entry of [row, day]) {
    expect(entry.distinct).toBe(distinct);
    expect(entry.distinct_approximate).toBeUndefined();
    expect(entry.approximate).toBeUndefined();
  }
  expect(row.median).toBe(exactMedian(rows));
  expect((row.histogram as { count: number }[]).map((bin) => bin.count)).toEqual(binCounts(rows, false));
  expect((day.histogram as { count: number }[]).map((bin) => bin.count)).toEqual(binCounts(rows.map((r) => FIRST_DAY + r), true));
  expect(day.min).toBe(dateText(FIRST_DAY + rows.reduce((a, b) => Math.min(a, b))));
}

describe("sequences in the column statistics", () => {
  it("row numbers and a daily date past the exact limit stay a sequence: every figure exact, stored as three numbers", () => {
    const rows = range(1, 250_000);
    const summary = summarise(table(rows));
    expect(sequenceOf(summary, 0)).toEqual({ first: 1, step: 1, count: 250_000 });
    expect(sequenceOf(summary, 1)).toEqual({ first: FIRST_DAY + 1, step: 1, count: 250_000 });
    // The reading (5, 15, 25, …) is a sequence too, of step 10.
    expect(sequenceOf(summary, 2)).toEqual({ first: 5, step: 10, count: 250_000 });
    expectExact(summary, rows);
    const reading = statisticsDocument(schema, summary).columns[2] as Entry;
    expect(reading.median).toBe(exactMedian(rows.map((i) => 10 * i - 5)));
    // Three sequences and a header: far less than one HyperLogLog sketch.
    expect(encodeSummary(summary).length).toBeLessThan(300);
  });

  it("appends that carry a sequence on keep it; merged out of order, its values go into the sketches, within their bounds", () => {
    const parent = summarise(table(range(1, 150_000)));
    const append = summarise(table(range(150_001, 300_000)));
    const carried = mergeSummaries(parent, append);
    expect(sequenceOf(carried, 0)).toEqual({ first: 1, step: 1, count: 300_000 });
    expectExact(decodeSummary(encodeSummary(carried)), range(1, 300_000));

    const reversed = mergeSummaries(summarise(table(range(150_001, 300_000))), summarise(table(range(1, 150_000))));
    expect(sequenceOf(reversed, 0)).toBeNull();
    const row = statisticsDocument(schema, reversed).columns[0] as Entry;
    expect(row.distinct_approximate).toBe(true);
    expect(Math.abs(row.distinct - 300_000)).toBeLessThanOrEqual(0.02 * 300_000);
    expect(Math.abs(Number(row.median) - 150_000.5)).toBeLessThanOrEqual(0.005 * 300_000);
    for (const bin of row.histogram as { count: number }[]) expect(Math.abs(bin.count - 30_000)).toBeLessThanOrEqual(0.005 * 300_000);
  });

  it("a sequence one value breaks counts every value as if it had never been one", () => {
    // Below the exact limit the broken run is counted exactly: a repeated value, then on.
    const small = [...range(1, 5000), 3, ...range(5001, 9000)];
    const broken = summarise(table(small));
    expect(sequenceOf(broken, 0)).toBeNull();
    expectExact(broken, small);
    const row = statisticsDocument(schema, broken).columns[0] as Entry;
    expect(row.distinct).toBe(9000);
    // Broken by the first value of the feed's second batch of 8,192.
    const atBatch = [...range(1, 8192), 1, ...range(8193, 12_000)];
    const brokenAtBatch = summarise(table(atBatch));
    expect(sequenceOf(brokenAtBatch, 0)).toBeNull();
    expectExact(brokenAtBatch, atBatch);

    // Past it, within the sketches' bounds.
    const large = [...range(1, 100_000), 17, ...range(100_001, 200_000)];
    const document = statisticsDocument(schema, summarise(table(large)));
    const entry = document.columns[0] as Entry;
    expect(entry.distinct_approximate).toBe(true);
    expect(Math.abs(entry.distinct - 200_000)).toBeLessThanOrEqual(0.02 * 200_000);
    expect(Math.abs(Number(entry.median) - exactMedian(large))).toBeLessThanOrEqual(0.005 * large.length);
    const truth = binCounts(large, false);
    (entry.histogram as { count: number }[]).forEach((bin, b) => expect(Math.abs(bin.count - truth[b]!)).toBeLessThanOrEqual(0.005 * large.length));
  });

  it("missing cells and NaN beside a sequence leave it one; a value past 2^53 − 1 ends it", () => {
    const rows = table(range(1, 30_000));
    rows[10]![0] = "";
    // The row column lost row 11 to a missing cell: 10, then 12, so not one run.
    expect(sequenceOf(summarise(rows), 0)).toBeNull();
    // A NaN between 14,999 and 15,000 leaves the readings one run: NaN is counted apart.
    const reading = summarise(table(range(1, 30_000), (i) => (i < 15_000 ? String(i) : i === 15_000 ? "NaN" : String(i - 1))));
    expect(sequenceOf(reading, 2)).toEqual({ first: 1, step: 1, count: 29_999 });
    const entry = statisticsDocument(schema, reading).columns[2] as Entry;
    expect(entry.distinct).toBe(30_000);
    expect(entry.nan).toBe(1);
    expect(entry.median).toBe(15_000);

    const near = summarise(table(range(1, 3)).map((row, i) => [String(Number.MAX_SAFE_INTEGER - 2 + i), row[1]!, row[2]!]).concat([[`${2n ** 53n}`, dateText(FIRST_DAY + 4), "35"]]));
    expect(sequenceOf(near, 0)).toBeNull();
    expect((statisticsDocument(schema, near).columns[0] as Entry).distinct).toBe(4);
  });
});
