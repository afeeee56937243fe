// A seeded random table for the column-statistics tests: every field type, missing cells, ties,
// non-ASCII text, NaN and ±INF, dates before 1970, integers past 2^53, low- and high-cardinality
// columns, one numeric and one text column past 100,000 distinct values. Cells are text, as the
// CSV holds them; typedRows casts them as a version's rows are cast.
import { typedRow, type Cell } from "../../../src/schema/cast.ts";
import type { FieldType, TableSchema } from "../../../src/schema/table-schema.ts";
import { mulberry32, pick, randomInt, type Random } from "../../helpers/random.ts";

export interface TestColumn {
  name: string;
  type: FieldType;
  /** The DuckDB type the CSV is read as. */
  duckdb: string;
  cell: (random: Random, row: number) => string;
}

const WORDS = ["Zürich", "Genève", "東京", "😀 smile", "a,b", 'say "hi"', "x", "München", "İstanbul", "naïve café"];
const BIG = ["9007199254740992", "9007199254740993", "9007199254740994", "-9007199254740993", "123456789012345678901234567", "-98765432109876543210"];
const pad = (value: number, width = 2) => String(value).padStart(width, "0");

function date(random: Random): string {
  const ms = Date.UTC(1900, 0, 1) + Math.floor(random() * (Date.UTC(2100, 0, 1) - Date.UTC(1900, 0, 1)));
  return new Date(ms).toISOString().slice(0, 10);
}

function clock(random: Random, fraction: boolean): string {
  const time = `${pad(randomInt(random, 0, 23))}:${pad(randomInt(random, 0, 59))}:${pad(randomInt(random, 0, 59))}`;
  return fraction && random() < 0.5 ? `${time}.${pad(randomInt(random, 0, 999), 3)}` : time;
}

const momentRandom = mulberry32(1);
const MOMENTS = Array.from({ length: 5000 }, () => `${date(momentRandom)}T${clock(momentRandom, true)}${pick(momentRandom, ["Z", "+01:00", "-05:30"])}`);
const missing = (random: Random, share: number, cell: () => string) => (random() < share ? "" : cell());

export const COLUMNS: TestColumn[] = [
  { name: "small_int", type: "integer", duckdb: "HUGEINT", cell: (r) => missing(r, 0.1, () => String(randomInt(r, -5, 20))) },
  {
    name: "wide_int",
    type: "integer",
    duckdb: "HUGEINT",
    cell: (r) =>
      missing(r, 0.05, () => {
        const roll = r();
        if (roll < 0.01) return `${r() < 0.5 ? "-" : ""}${randomInt(r, 1, 9)}${String(randomInt(r, 0, 99_999_999)).padStart(8, "0")}${String(randomInt(r, 0, 99_999_999)).padStart(8, "0")}`;
        if (roll < 0.02) return `00${randomInt(r, 0, 999)}`;
        return String(randomInt(r, -1_000_000_000, 1_000_000_000));
      }),
  },
  {
    name: "big_int",
    type: "integer",
    duckdb: "HUGEINT",
    // Neighbours past 2^53 share a double; they stay distinct values.
    cell: (r) => missing(r, 0.05, () => (r() < 0.3 ? pick(r, BIG) : String(randomInt(r, -1000, 1000)))),
  },
  { name: "many_int", type: "integer", duckdb: "HUGEINT", cell: (_r, row) => String(row * 7 - 500_000) },
  {
    name: "real",
    type: "number",
    duckdb: "DOUBLE",
    cell: (r) =>
      missing(r, 0.05, () => {
        const roll = r();
        if (roll < 0.01) return "NaN";
        if (roll < 0.3) return pick(r, ["1.5", "-0.25", "3", "0", "-0", "2.5e3"]);
        return String(Math.round((r() * 2000 - 1000) * 1e4) / 1e4);
      }),
  },
  { name: "extreme", type: "number", duckdb: "DOUBLE", cell: (r) => missing(r, 0.05, () => (r() < 0.002 ? pick(r, ["INF", "-INF"]) : String(r() * 10))) },
  { name: "many_real", type: "number", duckdb: "DOUBLE", cell: (r) => String(r() * 1e6) },
  // Drawn from 40,000 values: past the values kept with their counts, within the distinct counted exactly.
  { name: "mid_real", type: "number", duckdb: "DOUBLE", cell: (r) => String(randomInt(r, 0, 39_999) * 0.37 - 5000) },
  { name: "flag", type: "boolean", duckdb: "BOOLEAN", cell: (r) => missing(r, 0.1, () => (r() < 0.3 ? "true" : "false")) },
  { name: "day", type: "date", duckdb: "DATE", cell: (r) => missing(r, 0.05, () => date(r)) },
  {
    name: "moment",
    type: "datetime",
    duckdb: "TIMESTAMPTZ",
    // Drawn from 5,000 instants, so the column stays exact.
    cell: (r) => missing(r, 0.05, () => pick(r, MOMENTS)),
  },
  { name: "local_moment", type: "datetime", duckdb: "TIMESTAMP", cell: (r) => missing(r, 0.05, () => `${date(r)} ${clock(r, true)}`) },
  {
    name: "clock",
    type: "time",
    duckdb: "TIME",
    cell: (r) => missing(r, 0.05, () => `${pad(randomInt(r, 0, 23))}:${pad(15 * randomInt(r, 0, 3))}:${pad(randomInt(r, 0, 59))}${r() < 0.2 ? ".25" : ""}`),
  },
  { name: "word", type: "string", duckdb: "VARCHAR", cell: (r) => missing(r, 0.1, () => pick(r, WORDS)) },
  { name: "mid_text", type: "string", duckdb: "VARCHAR", cell: (r) => missing(r, 0.02, () => `code-${randomInt(r, 0, 39_999)}`) },
  {
    name: "label",
    type: "string",
    duckdb: "VARCHAR",
    // A few heavy hitters over a long tail: past 1,000 and 100,000 distinct values.
    cell: (r) => missing(r, 0.02, () => (r() < 0.25 ? `hot-${Math.floor(r() ** 2 * 12)}` : `tail-${randomInt(r, 0, 10_000_000)}-ü`)),
  },
];

export interface TestTable {
  schema: TableSchema;
  columns: TestColumn[];
  text: string[][];
  cells: Cell[][];
}

export function testTable(seed: number, rows: number, columns: TestColumn[] = COLUMNS): TestTable {
  const random = mulberry32(seed);
  const schema: TableSchema = { fields: columns.map((c) => ({ name: c.name, type: c.type })), missingValues: [""] };
  const text = Array.from({ length: rows }, (_, row) => columns.map((c) => c.cell(random, row)));
  const missingValues = new Set(schema.missingValues);
  return { schema, columns, text, cells: text.map((cells) => typedRow(schema, missingValues, cells)) };
}
