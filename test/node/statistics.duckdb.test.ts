// The statistics document checked against DuckDB's own answers over the same rows
// (docs/statistics.md): a seeded table of every type is summarised in one pass, written to a CSV
// in the temp directory and read by DuckDB with explicit types, and every figure is compared —
// exactly where the document leaves it unmarked, within the documented bound where it is marked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statisticsDocument, type ColumnStatistics, type StatisticsDocument } from "../../src/columnar/statistics/document.ts";
import { EXACT_DISTINCT_LIMIT, EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { createSummaries, observeRow } from "../../src/columnar/statistics/table-summary.ts";
import { COLUMNS, testTable, type TestColumn } from "./helpers/statistics-table.ts";

const ROWS = 150_000;
const table = testTable(20261126, ROWS);
let document: StatisticsDocument;
let connection: DuckDBConnection;
let directory: string;

async function row(sql: string): Promise<unknown[]> {
  const rows = (await connection.runAndReadAll(sql)).getRows();
  return rows[0] ?? [];
}

const num = (value: unknown): number => (value === "INF" ? Infinity : value === "-INF" ? -Infinity : value === "NaN" ? NaN : Number(value));
const sqlText = (text: string) => `'${text.replace(/'/g, "''")}'`;

function closeTo(actual: unknown, expected: unknown, relative = 1e-9): void {
  const a = num(actual);
  const e = num(expected);
  if (Number.isNaN(e) || !Number.isFinite(e)) return void expect(Object.is(a, e) || a === e).toBe(true);
  expect(Math.abs(a - e)).toBeLessThanOrEqual(relative * Math.abs(e) + 1e-300);
}

/** Microseconds (days for a date) of an ISO text, read here independently of src/. */
function units(type: string, text: unknown): number {
  const value = String(text);
  if (type === "date") return Date.parse(`${value}T00:00:00Z`) / 86_400_000;
  const match = /^(.*?)(?:\.(\d+))?(Z)?$/.exec(value)!;
  const micros = Number((match[2] ?? "").padEnd(6, "0"));
  if (type === "time") {
    const [h, m, s] = match[1]!.split(":").map(Number);
    return ((h! * 60 + m!) * 60 + s!) * 1_000_000 + micros;
  }
  return Date.parse(`${match[1]}Z`) * 1000 + micros;
}

/** The DuckDB expression giving the same units for column `x`. */
function unitsSql(type: string): string {
  if (type === "date") return `(x - DATE '1970-01-01')`;
  if (type === "time") return `((hour(x) * 3600 + minute(x) * 60)::BIGINT * 1000000 + microsecond(x))`;
  return "epoch_us(x)";
}

function entry(name: string): ColumnStatistics & Record<string, unknown> {
  return document.columns.find((column) => column.name === name)! as ColumnStatistics & Record<string, unknown>;
}

beforeAll(async () => {
  const summary = createSummaries(table.schema);
  for (const cells of table.cells) observeRow(summary, cells);
  document = statisticsDocument(table.schema, summary);
  directory = mkdtempSync(join(tmpdir(), "pubset-statistics-"));
  const csv = join(directory, "table.csv");
  const quote = (cell: string) => (cell === "" ? "" : `"${cell.replace(/"/g, '""')}"`);
  writeFileSync(csv, [COLUMNS.map((c) => c.name).join(","), ...table.text.map((cells) => cells.map(quote).join(","))].join("\n") + "\n");
  const instance = await DuckDBInstance.create(":memory:");
  connection = await instance.connect();
  const types = COLUMNS.map((c) => `'${c.name}': '${c.duckdb}'`).join(", ");
  await connection.run(`CREATE TABLE t AS SELECT * FROM read_csv(${sqlText(csv)}, header = true, columns = {${types}}, nullstr = '', quote = '"', escape = '"')`);
});

afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe("statistics against DuckDB", () => {
  it("counts the rows and describes every field in order", async () => {
    expect(document.rows).toBe(Number((await row("SELECT count(*) FROM t"))[0]));
    expect(document.columns.map((c) => [c.name, c.type])).toEqual(COLUMNS.map((c) => [c.name, c.type]));
  });

  it.each(COLUMNS.map((c) => [c.name, c] as const))("%s: nulls and distinct", async (name, column) => {
    const [nulls, distinct] = (await row(`SELECT count(*) - count(${name}), count(DISTINCT ${name}) FROM t`)).map(Number);
    const ours = entry(name);
    expect(ours.nulls).toBe(nulls);
    if (ours.distinct_approximate) {
      expect(distinct).toBeGreaterThan(EXACT_DISTINCT_LIMIT);
      expect(Math.abs(ours.distinct - distinct!)).toBeLessThanOrEqual(0.02 * distinct!);
    } else expect(ours.distinct).toBe(distinct);
    if (column.name.startsWith("many_") || column.name === "label") expect(ours.distinct_approximate).toBe(true);
    // Past the values kept with their counts, within the distinct values counted exactly.
    if (column.name.startsWith("mid_")) expect([ours.distinct_approximate, distinct! > EXACT_VALUES_LIMIT, distinct! <= EXACT_DISTINCT_LIMIT]).toEqual([undefined, true, true]);
  });

  const numeric = COLUMNS.filter((c) => c.type === "integer" || c.type === "number");
  it.each(numeric.map((c) => [c.name, c] as const))("%s: min, max, mean, std, median", async (name, column: TestColumn) => {
    const x = `${name} AS x`;
    const notNan = column.duckdb === "DOUBLE" ? "WHERE NOT isnan(x)" : "";
    const [min, max, mean, std, median, count] = await row(
      `SELECT min(x), max(x), avg(x), ${name === "extreme" ? "NULL" : "stddev_pop(x)"}, quantile_cont(x, 0.5), count(x) FROM (SELECT ${x} FROM t) ${notNan}`,
    );
    const ours = entry(name);
    // HUGEINT comes back as a BigInt: compared digit for digit; DOUBLE as a number (±Infinity for INF).
    const same = (theirs: unknown, mine: unknown) => (typeof theirs === "bigint" ? String(mine) === String(theirs) : num(mine) === num(theirs));
    expect(same(min, ours.min), `min ${String(ours.min)} vs DuckDB ${String(min)}`).toBe(true);
    expect(same(max, ours.max), `max ${String(ours.max)} vs DuckDB ${String(max)}`).toBe(true);
    closeTo(ours.mean, mean);
    if (name === "extreme") expect(ours.std).toBe("NaN");
    else closeTo(ours.std, std);
    if (!ours.approximate) closeTo(ours.median, median, 1e-12);
    else {
      const [below, atOrBelow] = (await row(`SELECT count(*) FILTER (WHERE x < ${ours.median}), count(*) FILTER (WHERE x <= ${ours.median}) FROM (SELECT ${name}::DOUBLE AS x FROM t WHERE ${name} IS NOT NULL) ${notNan}`)).map(Number);
      const half = Number(count) / 2;
      expect(below!).toBeLessThanOrEqual(half + 0.005 * ROWS);
      expect(atOrBelow!).toBeGreaterThanOrEqual(half - 0.005 * ROWS);
    }
  });

  it.each(COLUMNS.filter((c) => !["boolean", "string"].includes(c.type)).map((c) => [c.name, c] as const))("%s: histogram", async (name, column) => {
    const ours = entry(name);
    const bins = ours.histogram as { from: unknown; to: unknown; count: number }[];
    const temporal = ["date", "datetime", "time"].includes(column.type);
    const value = temporal ? unitsSql(column.type) : "x::DOUBLE";
    const edge = (text: unknown) => (temporal ? String(units(column.type, text)) : `'${String(num(text))}'::DOUBLE`);
    expect(bins).toHaveLength(10);
    const filters = bins.map((bin, i) => {
      const upper = `${value} < ${edge(bin.to)}`;
      const lower = `${value} >= ${edge(bin.from)}`;
      return `count(*) FILTER (WHERE ${i === 0 ? upper : i === bins.length - 1 ? lower : `${lower} AND ${upper}`})`;
    });
    const notNan = column.duckdb === "DOUBLE" ? "AND NOT isnan(x)" : "";
    const counts = (await row(`SELECT ${filters.join(", ")}, count(*) FROM (SELECT ${name} AS x FROM t) WHERE x IS NOT NULL ${notNan}`)).map(Number);
    const total = counts.pop()!;
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(total);
    if (temporal) {
      const [min, max] = (await row(`SELECT min(${value}), max(${value}) FROM (SELECT ${name} AS x FROM t)`)).map(Number);
      expect(units(column.type, ours.min)).toBe(min);
      expect(units(column.type, ours.max)).toBe(max);
      expect(units(column.type, bins[0]!.from)).toBe(min);
    }
    bins.forEach((bin, i) => {
      if (ours.approximate) expect(Math.abs(bin.count - counts[i]!)).toBeLessThanOrEqual(0.005 * ROWS);
      else expect(bin.count).toBe(counts[i]);
    });
  });

  it("flag: true and false counts", async () => {
    const [trues, falses] = (await row("SELECT count(*) FILTER (WHERE flag), count(*) FILTER (WHERE NOT flag) FROM t")).map(Number);
    expect([entry("flag").true, entry("flag").false]).toEqual([trues, falses]);
  });

  it.each(["word", "label"])("%s: lengths and top values", async (name) => {
    const ours = entry(name);
    const [minLength, maxLength, meanLength] = await row(`SELECT min(length(${name})), max(length(${name})), avg(length(${name})) FROM t`);
    expect([ours.min_length, ours.max_length]).toEqual([Number(minLength), Number(maxLength)]);
    closeTo(ours.mean_length, meanLength, 1e-12);
    const truth = (await connection.runAndReadAll(`SELECT ${name}, count(*) AS n FROM t WHERE ${name} IS NOT NULL GROUP BY 1 ORDER BY n DESC, 1 LIMIT 10`)).getRows();
    const top = ours.top as { value: string; count: number }[];
    expect(top).toHaveLength(10);
    for (const { value, count } of top) {
      const [real] = (await row(`SELECT count(*) FROM t WHERE ${name} = ${sqlText(value)}`)).map(Number);
      if (ours.top_approximate) {
        expect(real! - count).toBeGreaterThanOrEqual(0);
        expect(real! - count).toBeLessThanOrEqual(ROWS / 1024);
      } else expect(count).toBe(real);
    }
    if (!ours.top_approximate) expect(top.map((t) => t.count)).toEqual(truth.map((t) => Number(t[1])));
    else expect(top.slice(0, 3).map((t) => t.value)).toEqual(truth.slice(0, 3).map((t) => t[0]));
  });

  it("marks the top of a column past 1,000 distinct values approximate, and not below", () => {
    expect(entry("label").top_approximate).toBe(true);
    expect(entry("word").top_approximate).toBeUndefined();
  });
});

describe("statistics against DuckDB on a few rows", () => {
  it("interpolates an even count's median, and reads −0 and 0 as one value", async () => {
    const values = ["10", "-0", "2", "0", "4", "1", "", "NaN"];
    const schema = { fields: [{ name: "x", type: "number" as const }], missingValues: [""] };
    const summary = createSummaries(schema);
    for (const text of values) observeRow(summary, [text === "" ? null : text === "NaN" ? "NaN" : Number(text)]);
    const ours = statisticsDocument(schema, summary).columns[0] as ColumnStatistics & Record<string, unknown>;
    const list = values.map((v) => (v === "" ? "NULL" : `'${v}'::DOUBLE`)).join("), (");
    const [distinct, median, mean] = await row(`SELECT count(DISTINCT x), quantile_cont(x, 0.5) FILTER (WHERE NOT isnan(x)), avg(x) FILTER (WHERE NOT isnan(x)) FROM (VALUES (${list})) v(x)`);
    expect(ours.distinct).toBe(Number(distinct));
    closeTo(ours.median, median, 1e-12);
    closeTo(ours.mean, mean);
    expect([ours.nulls, ours.nan]).toEqual([1, 1]);
  });
});

