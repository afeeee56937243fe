// Mergeable statistics (docs/statistics.md#appends): a table cut into random chunks — a thousand
// of them one row long — summarised chunk by chunk, encoded and decoded, and merged in random
// tree shapes gives the one-pass document: equal in every exact figure, and within the
// documented bounds of the truth (counted here directly from the cells) in every marked one.
import { describe, expect, it } from "vitest";
import { statisticsDocument, type ColumnStatistics, type StatisticsDocument } from "../../src/columnar/statistics/document.ts";
import { KEY, keyOfNumber } from "../../src/columnar/statistics/hash.ts";
import { KeySketch } from "../../src/columnar/statistics/key-sketch.ts";
import { EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { NumericColumn } from "../../src/columnar/statistics/numeric-column.ts";
import { createSummaries, decodeSummary, encodeSummary, mergeSummaries, observeRow, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import type { Cell } from "../../src/schema/cast.ts";
import { mulberry32, randomInt, type Random } from "../helpers/random.ts";
import { COLUMNS, testTable, type TestTable } from "./helpers/statistics-table.ts";

type Entry = ColumnStatistics & Record<string, unknown>;
type Bins = { from: unknown; to: unknown; count: number }[];

function summarise(table: TestTable, from: number, to: number): TableSummary {
  const summary = createSummaries(table.schema);
  for (let i = from; i < to; i++) observeRow(summary, table.cells[i]!);
  return summary;
}

const roundTrip = (summary: TableSummary) => decodeSummary(encodeSummary(summary));

/** A cell as a double for ranks and bins, read here without src/: days, microseconds, or the number. */
function position(type: string, cell: Cell): number | null {
  if (cell === null || cell === "NaN") return null;
  if (cell === "INF") return Infinity;
  if (cell === "-INF") return -Infinity;
  if (typeof cell === "number") return cell;
  if (type === "integer") return Number(BigInt(cell));
  if (type === "date") return Date.parse(`${cell}T00:00:00Z`) / 86_400_000;
  const text = String(cell);
  const match = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?$/.exec(text)!;
  const micros = Number((match[2] ?? "").padEnd(6, "0"));
  if (type === "time") {
    const [h, m, s] = match[1]!.split(":").map(Number);
    return ((h! * 60 + m!) * 60 + s!) * 1_000_000 + micros;
  }
  return Date.parse(`${match[1]!.replace(" ", "T")}${match[3] ?? "Z"}`) * 1000 + micros;
}

function distinctTruth(cells: Cell[]): number {
  return new Set(cells.filter((c) => c !== null).map((c) => (typeof c === "string" && /^-?\d+$/.test(c) ? BigInt(c).toString() : String(c === 0 ? 0 : c)))).size;
}

/** The merged document against the one-pass one and the truth, column by column. */
function expectEquivalent(table: TestTable, merged: StatisticsDocument, onePass: StatisticsDocument): void {
  const rows = table.cells.length;
  expect(merged.rows).toBe(onePass.rows);
  table.schema.fields.forEach((field, i) => {
    const ours = merged.columns[i] as Entry;
    const reference = onePass.columns[i] as Entry;
    const cells = table.cells.map((cells) => cells[i] ?? null);
    const where = `${field.name}`;
    for (const key of ["name", "type", "nulls", "min", "max", "true", "false", "min_length", "max_length", "nan", "distinct_approximate", "approximate", "top_approximate"]) {
      expect(ours[key], `${where}.${key}`).toEqual(reference[key]);
    }
    for (const key of ["mean", "std", "mean_length"]) {
      const [a, b] = [ours[key], reference[key]];
      if (typeof b === "number") expect(Math.abs((a as number) - b), `${where}.${key}`).toBeLessThanOrEqual(1e-9 * Math.abs(b) + 1e-300);
      else expect(a, `${where}.${key}`).toEqual(b);
    }
    if (ours.distinct_approximate) expect(Math.abs(ours.distinct - distinctTruth(cells)), `${where}.distinct`).toBeLessThanOrEqual(0.02 * distinctTruth(cells));
    else expect(ours.distinct, `${where}.distinct`).toBe(reference.distinct);
    if (ours.histogram) {
      const total = (ours.histogram as Bins).reduce((sum, bin) => sum + bin.count, 0);
      expect(total, `${where}.histogram total`).toBe(rows - ours.nulls - Number(ours.nan ?? 0));
    }
    if (!ours.approximate) {
      expect(ours.median, `${where}.median`).toEqual(reference.median);
      expect(ours.histogram, `${where}.histogram`).toEqual(reference.histogram);
    } else {
      const values = cells.map((c) => position(field.type, c)).filter((v): v is number => v !== null);
      const edges = (ours.histogram as Bins).map((bin, b) => (b === 0 ? -Infinity : position(field.type, bin.from as Cell)!));
      (ours.histogram as Bins).forEach((bin, b) => {
        const upper = b + 1 < edges.length ? edges[b + 1]! : Infinity;
        const truth = values.filter((v) => v >= edges[b]! && (v < upper || upper === Infinity)).length;
        expect(Math.abs(bin.count - truth), `${where}.histogram[${b}]`).toBeLessThanOrEqual(0.005 * rows);
      });
      if (ours.median !== undefined) {
        const median = Number(ours.median);
        const below = values.filter((v) => v < median).length;
        const atOrBelow = values.filter((v) => v <= median).length;
        expect(below, `${where}.median`).toBeLessThanOrEqual(values.length / 2 + 0.005 * rows);
        expect(atOrBelow, `${where}.median`).toBeGreaterThanOrEqual(values.length / 2 - 0.005 * rows);
      }
    }
    if (ours.top_approximate) {
      const counts = new Map<string, number>();
      for (const c of cells) if (c !== null) counts.set(String(c), (counts.get(String(c)) ?? 0) + 1);
      for (const { value, count } of ours.top as { value: string; count: number }[]) {
        const truth = counts.get(value) ?? 0;
        expect(truth - count, `${where}.top ${value}`).toBeGreaterThanOrEqual(0);
        expect(truth - count, `${where}.top ${value}`).toBeLessThanOrEqual(rows / 1024);
      }
    } else expect(ours.top, `${where}.top`).toEqual(reference.top);
  });
}

/** Cuts [0, rows) into chunks: the first `singles` one row each, then random lengths up to `longest`. */
function chunks(random: Random, rows: number, singles: number, longest: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < singles; i++) out.push([i, i + 1]);
  for (let at = singles; at < rows; ) {
    const end = Math.min(rows, at + randomInt(random, 1, longest));
    out.push([at, end]);
    at = end;
  }
  return out;
}

/** Merges summaries two at a time, picked at random, sometimes through the byte form. */
function mergeRandomly(random: Random, summaries: TableSummary[]): TableSummary {
  const pool = [...summaries];
  while (pool.length > 1) {
    const i = randomInt(random, 0, pool.length - 1);
    const [b] = pool.splice(i, 1);
    const j = randomInt(random, 0, pool.length - 1);
    const a = random() < 0.1 ? roundTrip(pool[j]!) : pool[j]!;
    pool[j] = mergeSummaries(a, random() < 0.1 ? roundTrip(b!) : b!);
  }
  return pool[0]!;
}

describe("merged statistics", () => {
  const table = testTable(7, 110_000);
  const onePass = statisticsDocument(table.schema, summarise(table, 0, table.cells.length));

  it.each([1, 2])("random chunks in a random tree (seed %i) give the one-pass document", (seed) => {
    const random = mulberry32(seed);
    const parts = chunks(random, table.cells.length, 1000, 30_000).map(([from, to]) => roundTrip(summarise(table, from, to)));
    expectEquivalent(table, statisticsDocument(table.schema, mergeRandomly(random, parts)), onePass);
  });

  it("a thousand one-row appends onto a parent give the one-pass document", () => {
    const small = testTable(11, 12_000);
    const parentRows = small.cells.length - 1000;
    let summary = roundTrip(summarise(small, 0, parentRows));
    for (let row = parentRows; row < small.cells.length; row++) {
      const parent = row % 100 === 0 ? roundTrip(summary) : summary;
      summary = mergeSummaries(parent, roundTrip(summarise(small, row, row + 1)));
    }
    expectEquivalent(small, statisticsDocument(small.schema, summary), statisticsDocument(small.schema, summarise(small, 0, small.cells.length)));
  });

  it("sketched summaries (past the exact limit on both sides) merge within bounds", () => {
    const wide = testTable(13, 340_000, COLUMNS.filter((c) => ["many_real", "label"].includes(c.name)));
    const random = mulberry32(3);
    const cuts: [number, number][] = [[0, 110_000], [110_000, 220_000], [220_000, 330_000], ...chunks(random, 10_000, 0, 3_000).map(([from, to]) => [from + 330_000, to + 330_000] as [number, number])];
    const parts = cuts.map(([from, to]) => roundTrip(summarise(wide, from, to)));
    expect(parts.filter((part) => statisticsDocument(wide.schema, part).columns[0]!.distinct_approximate).length).toBe(3);
    expectEquivalent(wide, statisticsDocument(wide.schema, mergeRandomly(random, parts)), statisticsDocument(wide.schema, summarise(wide, 0, wide.cells.length)));
  });

  it("a summary stored exact past today's exact limit (it was 100,000) reads exact, and merges with new ones within bounds", () => {
    const wide = testTable(17, 60_000, COLUMNS.filter((c) => ["many_real"].includes(c.name)));
    /** Rows [from, to) summarised as the code before the limit fell stored them: every value with its count, exact. */
    const stored = (from: number, to: number) => {
      const summary = summarise(wide, from, to);
      const exact = new KeySketch(true);
      const counts = new Map<number, number>();
      for (let row = from; row < to; row++) counts.set(wide.cells[row]![0] as number, (counts.get(wide.cells[row]![0] as number) ?? 0) + 1);
      for (const [value, count] of counts) {
        keyOfNumber(value);
        exact.table!.add(KEY[0]!, KEY[1]!, count);
      }
      (summary.columns[0] as NumericColumn).values = exact;
      return encodeSummary(summary);
    };
    const old = decodeSummary(stored(0, 30_000));
    expect(distinctTruth(wide.cells.slice(0, 30_000).map((cells) => cells[0] ?? null))).toBeGreaterThan(EXACT_VALUES_LIMIT);
    const alone = statisticsDocument(wide.schema, old).columns[0] as Entry;
    expect(alone.distinct_approximate).toBeUndefined();
    expect(alone.approximate).toBeUndefined();
    expect(alone.distinct).toBe(distinctTruth(wide.cells.slice(0, 30_000).map((cells) => cells[0] ?? null)));
    const sorted = wide.cells.slice(0, 30_000).map((cells) => cells[0] as number).sort((a, b) => a - b);
    expect(alone.median).toBe((sorted[14_999]! + sorted[15_000]!) / 2);
    // Merged with summaries made now, on either side, or with another old one: sketched, within bounds.
    const onePass = statisticsDocument(wide.schema, summarise(wide, 0, wide.cells.length));
    const fresh = () => roundTrip(summarise(wide, 30_000, 60_000));
    expectEquivalent(wide, statisticsDocument(wide.schema, mergeSummaries(decodeSummary(stored(0, 30_000)), fresh())), onePass);
    expectEquivalent(wide, statisticsDocument(wide.schema, mergeSummaries(fresh(), decodeSummary(stored(0, 30_000)))), onePass);
    expectEquivalent(wide, statisticsDocument(wide.schema, mergeSummaries(decodeSummary(stored(0, 30_000)), decodeSummary(stored(30_000, 60_000)))), onePass);
  });

  it("the first columns decoded alone merge and render as they do in the whole summary", () => {
    const table = testTable(13, 3_000);
    const head = { ...table.schema, fields: table.schema.fields.slice(0, 2) };
    const encoded = [summarise(table, 0, 1_000), summarise(table, 1_000, 3_000)].map(encodeSummary);
    const whole = encoded.map((bytes) => decodeSummary(bytes)).reduce((a, b) => mergeSummaries(a, b));
    const leading = encoded.map((bytes) => decodeSummary(bytes, 2)).reduce((a, b) => mergeSummaries(a, b));
    expect(leading.columns).toHaveLength(2);
    expect(statisticsDocument(head, leading)).toEqual({ ...statisticsDocument(table.schema, whole), columns: statisticsDocument(table.schema, whole).columns.slice(0, 2) });
    // Cut short, the whole summary still refuses what follows its end.
    expect(() => decodeSummary(new Uint8Array([...encoded[0]!, 0]))).toThrow(RangeError);
  });
});
