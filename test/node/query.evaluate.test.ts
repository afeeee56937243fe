// The query language's answers on hand-picked rows (docs/queries.md): three-valued logic, each
// type's comparison (NaN, big integers, instants, code points), LIKE, the order with nulls last
// and ties in file order, the bounded top-k, and pruning on block statistics.
import { describe, expect, it } from "vitest";
import type { Cell } from "../../src/schema/cast.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { compileTruth } from "../../src/query/language/evaluate.ts";
import { rank, type Ranked } from "../../src/query/language/ordering.ts";
import { blockMayMatch, type ColumnStatistics } from "../../src/query/language/pruning.ts";
import { compileQuery, type CompiledQuery } from "../../src/query/language/query.ts";
import { TopK } from "../../src/query/language/top-k.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "n", type: "integer" },
    { name: "amount", type: "number" },
    { name: "name", type: "string" },
    { name: "at", type: "datetime" },
    { name: "clock", type: "time" },
    { name: "ok", type: "boolean" },
    { name: "day", type: "date" },
  ],
  missingValues: [""],
};

function query(where: string, order = ""): CompiledQuery {
  const result = compileQuery({ where, order }, SCHEMA);
  if (!result.ok) throw new Error(result.error.detail);
  return result.value;
}

/** A row with the given cells by name, the rest missing. */
function row(cells: Partial<Record<"n" | "amount" | "name" | "at" | "clock" | "ok" | "day", Cell>>): Cell[] {
  return SCHEMA.fields.map((field) => cells[field.name as keyof typeof cells] ?? null);
}

const truth = (where: string, cells: Parameters<typeof row>[0]) => compileTruth(query(where).where!)(row(cells));

describe("three-valued logic, as DuckDB and PostgreSQL", () => {
  it("makes a comparison with a missing cell unknown, and keeps NOT of unknown unknown", () => {
    expect(truth("amount > 0", {})).toBe(null);
    expect(truth("NOT (amount > 0)", {})).toBe(null);
    expect(query("NOT (amount > 0)").matches(row({}))).toBe(false);
    expect(query("NOT (amount > 0)").matches(row({ amount: -1 }))).toBe(true);
    expect(truth("amount IN (1, 2)", {})).toBe(null);
    expect(truth("amount NOT IN (1, 2)", {})).toBe(null);
    expect(truth("name LIKE '%'", {})).toBe(null);
    expect(truth("name NOT LIKE 'x'", {})).toBe(null);
  });

  it("combines unknown with AND and OR by SQL's tables", () => {
    const u = "amount > 0";
    expect(truth(`${u} AND n = 1`, { n: 1 })).toBe(null);
    expect(truth(`${u} AND n = 1`, { n: 2 })).toBe(false);
    expect(truth(`${u} OR n = 1`, { n: 1 })).toBe(true);
    expect(truth(`${u} OR n = 1`, { n: 2 })).toBe(null);
    expect(truth(`NOT (${u} OR n = 1)`, { n: 2 })).toBe(null);
    expect(truth(`NOT (${u} AND n = 1)`, { n: 2 })).toBe(true);
  });

  it("matches a missing cell only with IS NULL", () => {
    expect(truth("amount IS NULL", {})).toBe(true);
    expect(truth("amount IS NOT NULL", {})).toBe(false);
    expect(truth("amount IS NULL", { amount: 0 })).toBe(false);
    expect(truth("name = ''", { name: "" })).toBe(true);
  });

  it("treats a cell that does not read as its type as unknown, not as missing", () => {
    expect(truth("n = 1", { n: "abc" })).toBe(null);
    expect(truth("n IS NULL", { n: "abc" })).toBe(false);
  });
});

describe("comparisons by type", () => {
  it("orders NaN above every number and equal to itself, as DuckDB does", () => {
    expect(truth("amount = 'NaN'", { amount: "NaN" })).toBe(true);
    expect(truth("amount > 1e300", { amount: "NaN" })).toBe(true);
    expect(truth("amount > 'INF'", { amount: "NaN" })).toBe(true);
    expect(truth("amount < 'NaN'", { amount: "INF" })).toBe(true);
    expect(truth("amount = 0", { amount: -0 })).toBe(true);
    expect(truth("amount > 1e300", { amount: "1e400" })).toBe(true);
  });

  it("compares integers exactly past 2^53, and against fractions", () => {
    expect(truth("n > 9007199254740992", { n: "9007199254740993" })).toBe(true);
    expect(truth("n = 9007199254740993", { n: "9007199254740992" })).toBe(false);
    expect(truth("n < -123456789012345678901234567", { n: "-123456789012345678901234568" })).toBe(true);
    expect(truth("n IN (123456789012345678901234567)", { n: "+00123456789012345678901234567" })).toBe(true);
    expect(truth("n < 2.5", { n: 2 })).toBe(true);
    expect(truth("n > 2.5", { n: 3 })).toBe(true);
    expect(truth("n = 2.5", { n: 2 })).toBe(false);
    expect(truth("n != 2.5", { n: 2 })).toBe(true);
    expect(truth("n > -2.5", { n: -2 })).toBe(true);
    expect(truth("n < -2.5", { n: -3 })).toBe(true);
    expect(truth("n <= -2.5", { n: -2 })).toBe(false);
  });

  it("compares datetimes as instants, one without an offset as UTC", () => {
    expect(truth("at = '2024-01-01T08:00:00Z'", { at: "2024-01-01 10:00:00+02:00" })).toBe(true);
    expect(truth("at = '2024-01-01T08:00:00Z'", { at: "2024-01-01T08:00:00" })).toBe(true);
    expect(truth("at < '2024-01-01T00:00:00Z'", { at: "2024-01-01T00:30:00+01:00" })).toBe(true);
    expect(truth("at < '1970-01-01T00:00:00Z'", { at: "1969-12-31T23:59:59.999999Z" })).toBe(true);
    expect(truth("at > '2024-01-01T00:00:00.1Z'", { at: "2024-01-01T00:00:00.10000001Z" })).toBe(true);
    expect(truth("at = '2024-01-01T00:00:00.1Z'", { at: "2024-01-01T00:00:00.100Z" })).toBe(true);
  });

  it("compares times of day, moved to UTC when they carry an offset", () => {
    expect(truth("clock < '10:00:00.5'", { clock: "10:00:00" })).toBe(true);
    expect(truth("clock = '09:00:00'", { clock: "10:00:00+01:00" })).toBe(true);
    expect(truth("clock = '23:30:00'", { clock: "00:30:00+01:00" })).toBe(true);
  });

  it("compares dates and booleans", () => {
    expect(truth("day < '1970-01-01'", { day: "1969-12-31" })).toBe(true);
    expect(truth("day >= '0001-01-01'", { day: "0001-01-01" })).toBe(true);
    expect(truth("ok = true", { ok: true })).toBe(true);
    expect(truth("ok < true", { ok: false })).toBe(true);
  });

  it("compares text by code point, so astral characters sort above U+E000–U+FFFF", () => {
    expect(truth("name > '\uFFFD'", { name: "😀" })).toBe(true);
    expect(truth("name > '\uE000'", { name: "😀" })).toBe(true);
    expect(truth("name < 'a'", { name: "Z" })).toBe(true);
    expect(truth("name < 'ab'", { name: "a" })).toBe(true);
  });

  it("matches LIKE case-sensitively, `_` as one code point, with an optional escape", () => {
    const like = (pattern: string, name: string, escape = "") => truth(`name LIKE '${pattern}'${escape ? ` ESCAPE '${escape}'` : ""}`, { name });
    expect(like("_", "😀")).toBe(true);
    expect(like("__", "😀")).toBe(false);
    expect(like("a_c", "a😀c")).toBe(true);
    expect(like("A%", "abc")).toBe(false);
    expect(like("%", "")).toBe(true);
    expect(like("a%b%c", "axxbyyc")).toBe(true);
    expect(like("a%b%c", "axxbyyd")).toBe(false);
    expect(like("%ab", "aab")).toBe(true);
    expect(like("%a%a%a", "aa")).toBe(false);
    expect(like("50!%", "50%", "!")).toBe(true);
    expect(like("50!%", "500", "!")).toBe(false);
    expect(like("x!_y", "x_y", "!")).toBe(true);
    expect(like("x!_y", "xzy", "!")).toBe(false);
    expect(like("a\\b", "a\\b")).toBe(true);
    expect(like("%%", "anything")).toBe(true);
    expect(truth("name NOT LIKE 'a%'", { name: "b" })).toBe(true);
  });
});

describe("ordering", () => {
  const rows: Cell[][] = [row({ amount: 2 }), row({}), row({ amount: "NaN" }), row({ amount: 1 }), row({ amount: 2 }), row({}), row({ amount: "-INF" })];
  const ordered = (order: string) => {
    const q = query("", order);
    return rows.map((r, i) => rank(q.order, r, i, i)).sort(q.compare).map((r) => r.item);
  };

  it("puts missing cells last in both directions and breaks ties by file position", () => {
    expect(ordered("amount")).toEqual([6, 3, 0, 4, 2, 1, 5]);
    expect(ordered("-amount")).toEqual([2, 0, 4, 3, 6, 1, 5]);
    expect(ordered("")).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("keeps only the best offset + limit rows, in the same order as a full sort", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const many = Array.from({ length: 500 }, () => row({ amount: random() < 0.1 ? null : Math.floor(random() * 20), name: random() < 0.5 ? "a" : "b" }));
    const q = query("", "name,-amount");
    const full = many.map((r, i) => rank(q.order, r, i, i)).sort(q.compare);
    for (const k of [0, 1, 7, 100, 499, 500, 800]) {
      const top = new TopK<Ranked<number>>(k, q.compare);
      many.forEach((r, i) => top.push(rank(q.order, r, i, i)));
      expect(top.size).toBe(Math.min(k, many.length));
      expect(top.sorted().map((r) => r.item)).toEqual(full.slice(0, k).map((r) => r.item));
    }
  });
});

describe("pruning", () => {
  const stats = (column: number, s: ColumnStatistics): (ColumnStatistics | undefined)[] => SCHEMA.fields.map((_, i) => (i === column ? s : undefined));
  const amount = (min: Cell, max: Cell, nullCount = 0, rowCount = 10) => stats(1, { rowCount, nullCount, min, max });
  const may = (where: string, statistics: (ColumnStatistics | undefined)[], rows = 10) => blockMayMatch(query(where).where, statistics, rows);

  it("skips a block whose range cannot hold a match, and keeps one that may", () => {
    expect(may("amount > 5", amount(1, 5))).toBe(false);
    expect(may("amount >= 5", amount(1, 5))).toBe(true);
    expect(may("amount = 3", amount(4, 9))).toBe(false);
    expect(may("amount != 3", amount(3, 3))).toBe(false);
    expect(may("amount != 3", amount(3, 4))).toBe(true);
    expect(may("amount IN (0, 10)", amount(1, 9))).toBe(false);
    expect(may("amount NOT IN (3)", amount(3, 3))).toBe(false);
    expect(may("amount > 1e300", amount(1, "NaN"))).toBe(true);
  });

  it("follows three-valued logic: NOT of a comparison never matches a missing cell", () => {
    expect(may("NOT (amount > 0)", amount(1, 5, 3))).toBe(false);
    expect(may("NOT (amount > 0)", amount(null, null, 10))).toBe(false);
    expect(may("amount IS NULL", amount(1, 5, 3))).toBe(true);
    expect(may("amount IS NULL", amount(1, 5, 0))).toBe(false);
    expect(may("amount IS NOT NULL", amount(null, null, 10))).toBe(false);
    expect(may("NOT (amount > 0 AND amount < 0)", amount(null, null, 10))).toBe(false);
    expect(may("NOT (amount > 0 OR amount IS NULL)", amount(1, 5, 3))).toBe(false);
  });

  it("narrows LIKE by its literal prefix", () => {
    const name = (min: string, max: string) => stats(2, { rowCount: 5, nullCount: 0, min, max });
    expect(may("name LIKE 'b%'", name("c", "d"))).toBe(false);
    expect(may("name LIKE 'b%'", name("a", "az"))).toBe(false);
    expect(may("name LIKE 'b%'", name("a", "c"))).toBe(true);
    expect(may("name LIKE 'b%'", name("bz", "c"))).toBe(true);
    expect(may("name LIKE '%b'", name("c", "d"))).toBe(true);
    expect(may("name NOT LIKE 'b%'", name("bx", "bx"))).toBe(false);
  });

  it("keeps a block when a column's statistics are unknown, and skips an empty one", () => {
    expect(may("amount > 5", SCHEMA.fields.map(() => undefined))).toBe(true);
    expect(may("amount > 5", stats(1, { rowCount: 10, nullCount: 0 }))).toBe(true);
    expect(blockMayMatch(null, [], 0)).toBe(false);
    expect(blockMayMatch(null, [], 1)).toBe(true);
  });
});
