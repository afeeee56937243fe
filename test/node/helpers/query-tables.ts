// Seeded random tables and queries for the query language's differential test against DuckDB
// (test/node/query.duckdb.test.ts): every field type, with nulls, ties, astral text, NaN, big
// integers, dates before 1970 and datetimes with offsets; each query written twice, once in our
// language (with random spacing, keyword case and quoting) and once as the SQL that means the same.
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import type { Field, TableSchema } from "../../../src/schema/table-schema.ts";

export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** Columns, their DuckDB types, and the cell texts (as in a CSV; "" is missing) each draws from. */
export const FIELDS: readonly (Field & { sql: string })[] = [
  { name: "i", type: "integer", sql: "HUGEINT" },
  { name: "x", type: "number", sql: "DOUBLE" },
  { name: "b", type: "boolean", sql: "BOOLEAN" },
  { name: "d", type: "date", sql: "DATE" },
  { name: "t", type: "datetime", sql: "TIMESTAMPTZ" },
  { name: "h", type: "time", sql: "TIME" },
  { name: "s", type: "string", sql: "VARCHAR" },
  { name: "w,x", type: "string", sql: "VARCHAR" },
];
export const SCHEMA: TableSchema = { fields: FIELDS.map(({ name, type }) => ({ name, type })), missingValues: [""] };

const INTEGERS = ["0", "-0", "1", "-1", "2", "3", "+7", "007", "42", "-42", "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993", "123456789012345678901234567", "-123456789012345678901234567"];
const NUMBERS = ["0", "-0.0", "1", "1.5", "-1.5", "2.25", "1e3", ".5", "NaN", "INF", "-INF", "1e300", "-2.5e-3", "0.1", "3"];
const STRINGS = ["a", "A", "ab", "abc", "b", "é", "😀", "\uE000", "\uFFFD", "a😀", "a\uE000", "x_y", "50%", "it's", "Zz", " lead", "日本", "abd"];
const TIMES = ["00:00:00", "12:00:00", "12:00:00.5", "12:00:00.500001", "23:59:59", "08:30:00"];

function date(random: Random): string {
  return `${pad(pick(random, [1, 1899, 1969, 1970, 2000, 2024, 2100]), 4)}-${pad(int(random, 1, 12))}-${pad(int(random, 1, 28))}`;
}

function datetime(random: Random): string {
  const fraction = pick(random, ["", ".5", ".123456", ".000001"]);
  const zone = pick(random, ["", "Z", "+02:00", "-05:30", "+00:00", "z"]);
  const day = pick(random, ["1969-12-31", "1970-01-01", "2024-03-01", "2024-02-29", "0001-01-01"]);
  return `${day}${pick(random, ["T", " "])}${pad(pick(random, [0, 1, 22, 23]))}:${pad(pick(random, [0, 30]))}:${pad(pick(random, [0, 59]))}${fraction}${day === "0001-01-01" ? "Z" : zone}`;
}

/** One cell's text for a field; about one in six is missing. */
export function cellText(random: Random, field: Field): string {
  if (random() < 0.16) return "";
  switch (field.type) {
    case "integer":
      return random() < 0.7 ? pick(random, INTEGERS) : String(int(random, -50, 50));
    case "number":
      return random() < 0.7 ? pick(random, NUMBERS) : String(int(random, -500, 500) / 8);
    case "boolean":
      return pick(random, ["true", "false", "TRUE", "False"]);
    case "date":
      return random() < 0.5 ? pick(random, ["1969-12-31", "1970-01-01", "2024-01-01", "0001-01-01"]) : date(random);
    case "datetime":
      return datetime(random);
    case "time":
      return pick(random, TIMES);
    default:
      return field.name === "s" ? pick(random, STRINGS) : pick(random, ["p", "q", "😀", "p,q"]);
  }
}

export function table(random: Random, rows: number): string[][] {
  return Array.from({ length: rows }, () => FIELDS.map((field) => cellText(random, field)));
}

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The same value as DuckDB spells it: `inf` for INF, `Z` for `z`. */
function duckText(field: Field, text: string): string {
  if (field.type === "number") return text.replace("INF", "inf");
  if (field.type === "datetime") return text.replace(/z$/, "Z");
  return text;
}

/** A cell as a DuckDB literal of its column's type. */
export function sqlCell(field: (typeof FIELDS)[number], text: string): string {
  if (text === "") return "NULL";
  return `CAST(${sqlText(duckText(field, text))} AS ${field.sql})`;
}

/** A query in two spellings: ours and DuckDB's. */
export interface Spelled {
  ours: string;
  sql: string;
  /** A single predicate, which needs no parentheses inside AND or OR. */
  atomic?: boolean;
}

function keyword(random: Random, word: string): string {
  const r = random();
  return r < 0.5 ? word : r < 0.75 ? word.toLowerCase() : [...word].map((c, i) => (i % 2 ? c.toLowerCase() : c)).join("");
}

function space(random: Random): string {
  return pick(random, ["", " ", "  ", "\t"]);
}

function ourName(random: Random, name: string): string {
  return /^[A-Za-z_]\w*$/.test(name) && random() < 0.7 ? name : `"${name.replaceAll('"', '""')}"`;
}

const sqlName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A literal for a field: one that reads as the type, spelled as our language and as SQL. */
function literal(random: Random, field: (typeof FIELDS)[number], cells: readonly string[]): Spelled {
  const fromTable = cells.filter((cell) => cell !== "");
  switch (field.type) {
    case "integer": {
      const text = random() < 0.5 && fromTable.length > 0 ? pick(random, fromTable) : pick(random, ["0", "1", "2.5", "-1.5", "1.0", "1e1", "9007199254740992.5", "2", "-3", "123456789012345678901234567"]);
      const plain = text.replace(/^\+/, "").replace(/^(-?)0+(?=\d)/, "$1");
      const sql = /e/i.test(plain) ? String(BigInt(Number(plain))) : plain;
      return random() < 0.2 ? { ours: `'${text}'`, sql } : { ours: text, sql };
    }
    case "number": {
      const text = random() < 0.5 && fromTable.length > 0 ? pick(random, fromTable) : pick(random, ["0", "1", "1.50", "-0", "2e0", "0.1", ".5", "1e300", "-1.5"]);
      const sql = `CAST(${sqlText(text.replace("INF", "inf"))} AS DOUBLE)`;
      return text === "NaN" || text.endsWith("INF") || random() < 0.1 ? { ours: `'${text}'`, sql } : { ours: text, sql };
    }
    case "boolean": {
      const value = random() < 0.5;
      return { ours: random() < 0.8 ? keyword(random, String(value).toUpperCase()) : `'${value}'`, sql: String(value) };
    }
    case "string": {
      const text = random() < 0.7 && fromTable.length > 0 ? pick(random, fromTable) : pick(random, [...STRINGS, "c", "aa", "😀😀", "\uD83D\uDE01"]);
      return { ours: sqlText(text), sql: sqlText(text) };
    }
    default: {
      const text = random() < 0.7 && fromTable.length > 0 ? pick(random, fromTable) : field.type === "date" ? date(random) : field.type === "time" ? pick(random, TIMES) : datetime(random);
      return { ours: sqlText(text), sql: `CAST(${sqlText(duckText(field, text))} AS ${field.sql})` };
    }
  }
}

const LIKE_PATTERNS: readonly [string, string | null][] = [["a%", null], ["%b%", null], ["_", null], ["__", null], ["%😀", null], ["a_", null], ["%", null], ["50!%", "!"], ["x!_y", "!"], ["%\uE000%", null], ["_😀", null], ["A%", null], ["é%", null], ["%%d", null], ["it''s", null], ["p,%", null], ["a%b%c", null], ["%a", null]];

/** A predicate on one column. */
function predicate(random: Random, rows: readonly string[][]): Spelled {
  const column = int(random, 0, FIELDS.length - 1);
  const field = FIELDS[column]!;
  const name = ourName(random, field.name);
  const cells = rows.map((row) => row[column]!);
  const r = random();
  if (r < 0.12) {
    const not = random() < 0.5;
    return { ours: `${name} ${keyword(random, "IS")} ${not ? `${keyword(random, "NOT")} ` : ""}${keyword(random, "NULL")}`, sql: `${sqlName(field.name)} IS ${not ? "NOT " : ""}NULL` };
  }
  if (r < 0.27) {
    const not = random() < 0.3;
    const items = Array.from({ length: int(random, 1, 4) }, () => literal(random, field, cells));
    return {
      ours: `${name} ${not ? `${keyword(random, "NOT")} ` : ""}${keyword(random, "IN")}${space(random)}(${items.map((item) => item.ours).join(`,${space(random)}`)})`,
      sql: `${sqlName(field.name)} ${not ? "NOT " : ""}IN (${items.map((item) => item.sql).join(", ")})`,
    };
  }
  if (r < 0.4 && field.type === "string") {
    const [pattern, escape] = pick(random, LIKE_PATTERNS);
    const not = random() < 0.3;
    const tail = escape === null ? "" : ` ESCAPE '${escape}'`;
    return { ours: `${name} ${not ? `${keyword(random, "NOT")} ` : ""}${keyword(random, "LIKE")} '${pattern}'${tail.replace("ESCAPE", keyword(random, "ESCAPE"))}`, sql: `${sqlName(field.name)} ${not ? "NOT " : ""}LIKE '${pattern}'${tail}` };
  }
  const op = pick(random, ["=", "!=", "<>", "<", "<=", ">", ">="]);
  const value = literal(random, field, cells);
  return { ours: `${name}${space(random)}${op}${space(random)}${value.ours}`, sql: `${sqlName(field.name)} ${op} ${value.sql}` };
}

/** A random `where` of at most `depth` levels of AND, OR, NOT and parentheses. */
export function expression(random: Random, rows: readonly string[][], depth: number): Spelled {
  const r = random();
  if (depth <= 0 || r < 0.35) return { ...predicate(random, rows), atomic: true };
  if (r < 0.5) {
    const item = expression(random, rows, depth - 1);
    return { ours: `${keyword(random, "NOT")} (${item.ours})`, sql: `NOT (${item.sql})` };
  }
  const op = random() < 0.5 ? "AND" : "OR";
  const items = Array.from({ length: int(random, 2, 3) }, () => expression(random, rows, depth - 1));
  const paren = random() < 0.5;
  return {
    ours: items.map((item) => (paren || !item.atomic ? `(${item.ours})` : item.ours)).join(` ${keyword(random, op)} `),
    sql: items.map((item) => `(${item.sql})`).join(` ${op} `),
  };
}

/** A random `order`: up to three distinct columns, some descending; ours and the SQL ORDER BY. */
export function ordering(random: Random): Spelled {
  const columns = [...FIELDS].sort(() => random() - 0.5).slice(0, int(random, 1, 3));
  const terms = columns.map((field) => ({ field, descending: random() < 0.5 }));
  return {
    ours: terms.map(({ field, descending }) => `${descending ? "-" : ""}${field.name.includes(",") ? `"${field.name}"` : field.name}`).join(","),
    sql: `${terms.map(({ field, descending }) => `${sqlName(field.name)} ${descending ? "DESC" : "ASC"} NULLS LAST`).join(", ")}, rownum`,
  };
}

/** An in-memory DuckDB to answer the SQL of these queries. */
export async function openDuckdb(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  // Datetimes without an offset are UTC in our language; DuckDB reads them in its TimeZone.
  await connection.run("SET TimeZone = 'UTC'");
  return connection;
}

/** `rows` as table `t`, with `rownum` holding each row's position in the file. */
export async function loadTable(connection: DuckDBConnection, rows: readonly string[][]): Promise<void> {
  await connection.run("DROP TABLE IF EXISTS t");
  await connection.run(`CREATE TABLE t (rownum INTEGER, ${FIELDS.map((field) => `"${field.name}" ${field.sql}`).join(", ")})`);
  const values = rows.map((row, n) => `(${n}, ${row.map((text, i) => sqlCell(FIELDS[i]!, text)).join(", ")})`);
  await connection.run(`INSERT INTO t VALUES ${values.join(", ")}`);
}
