// Statistics fed by the Parquet encoder (docs/statistics.md, "Cost"): the part writer reports the
// values it writes, PLAIN ones cell by cell and dictionary-encoded ones as counts per entry, and
// the summary built from those reports renders the same document as casting every cell with
// typedRow and observing it row by row, over columns that exercise every kind, a widened kind, a
// dictionary dropped, a dictionary filled, small row groups and the cells at the edges.
import { describe, expect, it } from "vitest";
import { PartWriter, startKinds, type ColumnKind } from "../../src/columnar/parquet/index.ts";
import { columnFeeds } from "../../src/columnar/statistics/column-feed.ts";
import { statisticsDocument } from "../../src/columnar/statistics/document.ts";
import { createSummaries, decodeSummary, encodeSummary, observeRow, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import { typedRow } from "../../src/schema/cast.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { mulberry32 } from "../helpers/random.ts";

const below = (random: () => number, n: number) => Math.floor(random() * n);

/** The summary the build makes: a fresh one per attempt, as a part widened is encoded again. */
function fed(schema: TableSchema, rows: string[][], rowGroupRows: number): { summary: TableSummary; kinds: ColumnKind[] } {
  let kinds = startKinds(schema);
  for (;;) {
    const summary = createSummaries(schema);
    const writer = new PartWriter(schema, kinds, { rowGroupRows, sinks: columnFeeds(summary, schema) });
    for (let at = 0; at < rows.length; at += 777) writer.addRows(rows.slice(at, at + 777));
    const result = writer.finish();
    if (!result.ok) {
      kinds = result.kinds;
      continue;
    }
    summary.rows = result.metadata.rows;
    return { summary: decodeSummary(encodeSummary(summary)), kinds };
  }
}

function cast(schema: TableSchema, rows: string[][]): TableSummary {
  const summary = createSummaries(schema);
  const missing = new Set(schema.missingValues);
  for (const row of rows) observeRow(summary, typedRow(schema, missing, row));
  return decodeSummary(encodeSummary(summary));
}

/**
 * The two documents agree: exactly, but for `mean` and `std`, promised within 1e-9 relative (they
 * sum in another order), and for a column past the exact limit on both sides its median and its
 * bins' counts, which KLL makes from the values in the order they came (their bounds are
 * statistics.batch.test.ts's): the bins' counts then add up alike.
 */
function expectSameDocument(schema: TableSchema, a: TableSummary, b: TableSummary): void {
  const ours = statisticsDocument(schema, a);
  const theirs = statisticsDocument(schema, b);
  const binned = (column: (typeof ours)["columns"][number]) => (column as { histogram?: { from: unknown; to: unknown; count: number }[] }).histogram;
  const strip = (document: typeof ours) => ({
    ...document,
    columns: document.columns.map((column, i) => {
      const sketched = [ours.columns[i], theirs.columns[i]].every((entry) => (entry as { approximate?: boolean }).approximate === true);
      if (!sketched) return { ...column, mean: undefined, std: undefined };
      const bins = binned(column)!;
      return { ...column, mean: undefined, std: undefined, median: undefined, histogram: bins.map(({ from, to }) => ({ from, to })), total: bins.reduce((sum, bin) => sum + bin.count, 0) };
    }),
  });
  expect(strip(ours)).toEqual(strip(theirs));
  ours.columns.forEach((column, i) => {
    for (const key of ["mean", "std"] as const) {
      const [x, y] = [(column as unknown as Record<string, unknown>)[key], (theirs.columns[i] as unknown as Record<string, unknown>)[key]];
      if (typeof x === "number" && typeof y === "number") expect(Math.abs(x - y)).toBeLessThanOrEqual(1e-9 * Math.abs(y));
      else expect(x).toEqual(y);
    }
  });
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

describe("statistics fed by the Parquet encoder", () => {
  it("render the same document as casting every cell, for every kind and edge", () => {
    const random = mulberry32(23);
    const schema: TableSchema = {
      fields: [
        { name: "small", type: "integer" },
        { name: "wide", type: "integer" },
        { name: "huge", type: "integer" },
        { name: "grouped", type: "integer", groupChar: "," },
        { name: "price", type: "number" },
        { name: "ok", type: "boolean" },
        { name: "day", type: "date" },
        { name: "at", type: "datetime" },
        { name: "local", type: "datetime" },
        { name: "mixed", type: "datetime" },
        { name: "clock", type: "time" },
        { name: "zoned_clock", type: "time" },
        { name: "city", type: "string" },
        { name: "email", type: "string" },
      ],
      missingValues: ["", "NA"],
    };
    const specials = ["NaN", "INF", "-INF", "-0", "0", "1e300", "-2.5e-7", "007.50"];
    const wides = ["9007199254740993", "-9007199254740992", "9223372036854775807", "-9223372036854775808", "9007199254740991"];
    const rows: string[][] = [];
    for (let i = 0; i < 9000; i++) {
      const missing = random() < 0.05;
      const year = 1 + below(random, 9998);
      const day = `${pad(year, 4)}-${pad(1 + below(random, 12))}-${pad(1 + below(random, 28))}`;
      const clock = `${pad(below(random, 24))}:${pad(below(random, 60))}:${random() < 0.01 ? "60" : pad(below(random, 60))}${random() < 0.3 ? `.${below(random, 10_000_000)}` : ""}`;
      rows.push([
        missing ? "" : String(below(random, 50) - 10),
        random() < 0.1 ? wides[below(random, wides.length)]! : String(below(random, 1_000_000_000) * 1000),
        i === 5 ? "123456789012345678901234567890123456789012" : String(below(random, 1000)),
        `${below(random, 900)},${pad(below(random, 1000), 3)}`,
        missing ? "NA" : random() < 0.05 ? specials[below(random, specials.length)]! : (random() * 1000 - 500).toFixed(below(random, 4)),
        missing ? "" : ["true", "false", "TRUE", "False"][below(random, 4)]!,
        missing ? "" : day,
        `${day}T${clock}${["Z", "+05:30", "-11:00"][below(random, 3)]}`,
        `${day} ${clock}`,
        i % 1000 === 999 ? `${day}T${clock}Z` : `${day}T${clock}`,
        clock,
        i === 100 ? `${clock}+01:00` : clock,
        ["Zürich", "Genève", "東京", "a\"b", "😀"][below(random, 5)]!,
        i % 3 === 0 ? "" : `user${below(random, 3000)}@example.org`,
      ]);
    }
    for (const rowGroupRows of [1000, 65_536]) {
      const { summary, kinds } = fed(schema, rows, rowGroupRows);
      // The columns that had to be written as text still feed their numeric statistics.
      expect(kinds).toEqual(["int64", "int64", "string", "int64", "double", "boolean", "date", "timestamp-utc", "timestamp-local", "string", "time", "string", "string", "string"]);
      expectSameDocument(schema, summary, cast(schema, rows));
    }
  });

  it("count a dictionary's cells whether it is kept, dropped at its trial or filled mid-chunk", () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }, { name: "t", type: "string" }, { name: "x", type: "number" }], missingValues: [""] };
    const rows: string[][] = [];
    // 5,000 repeats keep both dictionaries past their trial; 70,000 distinct values then fill them.
    for (let i = 0; i < 5000; i++) rows.push([String(i % 7), `v${i % 7}`, i % 2 === 0 ? "" : "1.5"]);
    for (let i = 0; i < 70_000; i++) rows.push([String(i * 3), i % 10 === 0 ? "" : `value ${i % 3000}`, String(i / 7)]);
    const { summary } = fed(schema, rows, 100_000);
    expectSameDocument(schema, summary, cast(schema, rows));
  });
});

describe("runs of PLAIN values told at once", () => {
  it("count as the same values told one at a time, edges included", () => {
    const random = mulberry32(29);
    const fields = [
      { name: "n", type: "integer" },
      { name: "x", type: "number" },
      { name: "day", type: "date" },
      { name: "at", type: "datetime" },
      { name: "clock", type: "time" },
    ] as const;
    const integers = ["9007199254740991", "-9007199254740991", "9007199254740992", "-9007199254740992", "9007199254740993", "-9223372036854775808", "9223372036854775807", "0", "-0"];
    const numbers = ["-0", "-0.0", "0", "NaN", "INF", "-INF", "1e308", "-5e-324"];
    const instants = ["0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "2016-12-31T23:59:60Z", "1969-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z"];
    const clocks = ["23:59:60", "23:59:60.5", "00:00:00", "23:59:59.999999"];
    const rows: string[][] = [];
    // Mostly distinct values, so every chunk drops its dictionary and writes PLAIN runs, past the
    // exact limit (where a key is read off the doubles' bits); an edge now and then.
    for (let i = 0; i < 110_000; i++) {
      const edge = random() < 0.02;
      const micros = Math.floor(random() * 3e17) - 6e16;
      rows.push([
        edge ? integers[below(random, integers.length)]! : String(below(random, 2 ** 31) * 2 ** 21 - 2 ** 51),
        edge ? numbers[below(random, numbers.length)]! : String((random() - 0.5) * 1e6),
        `${pad(below(random, 10_000), 4)}-${pad(1 + below(random, 12))}-${pad(1 + below(random, 28))}`,
        edge ? instants[below(random, instants.length)]! : new Date(Math.floor(micros / 1000)).toISOString().replace("Z", `${pad(Math.abs(micros % 1000), 3)}Z`),
        edge ? clocks[below(random, clocks.length)]! : `${pad(below(random, 24))}:${pad(below(random, 60))}:${pad(below(random, 60))}.${pad(below(random, 1e6), 6)}`,
      ]);
    }
    // The kernel reads cells only where the empty cell is the one missing value; a second one sends them through the per-cell readers, told one at a time.
    const summaries = [[""], ["", "\u0001"]].map((missingValues) => {
      const schema: TableSchema = { fields: fields.map((field) => ({ ...field })), missingValues };
      const { summary, kinds } = fed(schema, rows, 65_536);
      expect(kinds).toEqual(["int64", "double", "date", "timestamp", "time"]);
      expect(statisticsDocument(schema, summary).columns[1]).toMatchObject({ distinct_approximate: true });
      return Buffer.from(encodeSummary(summary));
    });
    expect(summaries[0]!.equals(summaries[1]!)).toBe(true);
  });
});
