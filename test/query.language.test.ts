// docs/queries.md inside workerd: the query language is pure, so it must parse, type and answer
// there as it does under Node (test/node/query.*.test.ts) — here over rows cast by castCell from
// CSV text, as the rows route will hand them over.
import { describe, expect, it } from "vitest";
import { compileQuery } from "../src/query/language/query.ts";
import { rank, type Ranked } from "../src/query/language/ordering.ts";
import { TopK } from "../src/query/language/top-k.ts";
import { typedRow } from "../src/schema/cast.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "city", type: "string" },
    { name: "day", type: "date" },
    { name: "amount", type: "number" },
    { name: "count", type: "integer" },
  ],
  missingValues: [""],
};

const CSV_ROWS = [
  ["Zürich", "2024-01-02", "12.5", "3"],
  ["Oslo", "1969-07-20", "", "9007199254740993"],
  ["😀 town", "2024-01-01", "NaN", "-1"],
  ["Oslo", "2024-03-01", "-4", ""],
  ["Åre", "", "7", "2"],
];
const ROWS = CSV_ROWS.map((cells) => typedRow(SCHEMA, new Set(SCHEMA.missingValues), cells));

function answer(input: { where?: string; order?: string; columns?: string }, offset = 0, limit = 100) {
  const compiled = compileQuery(input, SCHEMA);
  if (!compiled.ok) throw new Error(compiled.error.detail);
  const query = compiled.value;
  const top = new TopK<Ranked<number>>(offset + limit, query.compare);
  let matched = 0;
  ROWS.forEach((row, position) => {
    if (!query.matches(row)) return;
    matched++;
    top.push(rank(query.order, row, position, position));
  });
  const rows = top
    .sorted()
    .slice(offset)
    .map((ranked) => query.columns.map((column) => ROWS[ranked.item]![column]));
  return { matched, rows };
}

describe("the query language in workerd", () => {
  it("filters with three-valued logic and orders with nulls last", () => {
    expect(answer({ where: "NOT (amount > 0)", columns: "city", order: "city" })).toEqual({ matched: 1, rows: [["Oslo"]] });
    expect(answer({ where: "amount >= 7 OR amount IS NULL", columns: "city,amount", order: "-amount" })).toEqual({
      matched: 4,
      rows: [
        ["😀 town", "NaN"],
        ["Zürich", 12.5],
        ["Åre", 7],
        ["Oslo", null],
      ],
    });
  });

  it("compares big integers exactly, dates in time, and text by code point", () => {
    expect(answer({ where: "count > 9007199254740992", columns: "city" }).rows).toEqual([["Oslo"]]);
    expect(answer({ where: "day < '2024-01-01'", columns: "city" }).rows).toEqual([["Oslo"]]);
    expect(answer({ where: "city > 'Z'", columns: "city", order: "city" }).rows).toEqual([["Zürich"], ["Åre"], ["😀 town"]]);
    expect(answer({ where: "city LIKE '_ town'", columns: "city" }).rows).toEqual([["😀 town"]]);
  });

  it("pages with offset and limit over the order", () => {
    expect(answer({ order: "-day", columns: "day" }, 1, 2)).toEqual({ matched: 5, rows: [["2024-01-02"], ["2024-01-01"]] });
  });

  it("refuses a wrong literal with its position, and normalises spellings to one key", () => {
    const wrong = compileQuery({ where: "amount = 'x'" }, SCHEMA);
    expect(wrong.ok ? null : { position: wrong.error.position, expected: wrong.error.expected }).toEqual({ position: 10, expected: "a number" });
    const a = compileQuery({ where: "amount=1" }, SCHEMA);
    const b = compileQuery({ where: "(AMOUNT = 1.0)".replace("AMOUNT", "amount") }, SCHEMA);
    expect(a.ok && b.ok && a.value.cacheKey === b.value.cacheKey).toBe(true);
  });
});
