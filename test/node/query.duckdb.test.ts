// The query language against DuckDB (docs/queries.md): seeded random tables of every field type
// and random queries from the grammar, each also written as SQL; the rows that match, how many,
// and their order must be DuckDB's. The normalised query must answer the same, the columns a plan
// says it needs must be enough, and pruning must never skip a block holding a match.
import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typedRow, type Cell } from "../../src/schema/cast.ts";
import { COLUMN_KINDS } from "../../src/query/language/column-kinds.ts";
import { rank, type Ranked } from "../../src/query/language/ordering.ts";
import { blockMayMatch, type ColumnStatistics } from "../../src/query/language/pruning.ts";
import { compileQuery, type CompiledQuery } from "../../src/query/language/query.ts";
import { TopK } from "../../src/query/language/top-k.ts";
import { expression, FIELDS, ordering, SCHEMA, seeded, sqlCell, table, type Random, loadTable, openDuckdb } from "./helpers/query-tables.ts";

const TABLES = 10;
const ROWS = 120;
const QUERIES_PER_TABLE = 200;

let connection: DuckDBConnection;

beforeAll(async () => {
  connection = await openDuckdb();
});

afterAll(() => {
  connection?.closeSync();
});

const load = (rows: readonly string[][]) => loadTable(connection, rows);

async function duckRows(where: string, orderBy: string): Promise<number[]> {
  const reader = await connection.runAndReadAll(`SELECT rownum FROM t WHERE ${where} ORDER BY ${orderBy}`);
  return reader.getRows().map((row) => Number(row[0]));
}

function ourRows(query: CompiledQuery, rows: readonly Cell[][]): number[] {
  const ranked = rows.flatMap((row, position) => (query.matches(row) ? [rank(query.order, row, position, position)] : []));
  return ranked.sort(query.compare).map((item) => item.item);
}

/** Statistics of a block of rows, min and max in the language's own order. */
function statistics(block: readonly Cell[][]): ColumnStatistics[] {
  return SCHEMA.fields.map((field, column) => {
    const kind = COLUMN_KINDS[field.type];
    const cells = block.map((row) => row[column] ?? null).filter((cell) => cell !== null);
    const sorted = [...cells].sort((a, b) => kind.compare(kind.key(a)!, kind.key(b)!));
    return { rowCount: block.length, nullCount: block.length - cells.length, min: sorted[0], max: sorted.at(-1) };
  });
}

function sample(random: Random): { rows: string[][]; typed: Cell[][] } {
  const rows = table(random, ROWS);
  const missing = new Set(SCHEMA.missingValues);
  return { rows, typed: rows.map((row) => typedRow(SCHEMA, missing, row)) };
}

describe("the query language answers as DuckDB does", () => {
  for (let seed = 1; seed <= TABLES; seed++) {
    it(`table ${seed}: where, order, offset and limit`, async () => {
      const random = seeded(seed * 7919);
      const { rows, typed } = sample(random);
      await load(rows);
      let matchedSome = 0;
      for (let q = 0; q < QUERIES_PER_TABLE; q++) {
        const where = expression(random, rows, 3);
        const order = random() < 0.7 ? ordering(random) : { ours: "", sql: "rownum" };
        const columns = FIELDS.filter(() => random() < 0.4).sort(() => random() - 0.5);
        const columnsParameter = columns.map((field) => (field.name.includes(",") ? `"${field.name}"` : field.name)).join(" , ");
        const compiled = compileQuery({ where: where.ours, order: order.ours, columns: columnsParameter }, SCHEMA);
        if (!compiled.ok) throw new Error(`${where.ours}: ${compiled.error.detail}`);
        const query = compiled.value;
        const names = columns.length === 0 ? FIELDS.map((field) => field.name) : columns.map((field) => field.name);
        expect(query.columns.map((column) => SCHEMA.fields[column]!.name)).toEqual(names);
        const expected = await duckRows(where.sql, order.sql);
        const context = `where=${where.ours}\nsql=${where.sql}\norder=${order.ours}`;
        expect(ourRows(query, typed), context).toEqual(expected);
        if (expected.length > 0) matchedSome++;

        const offset = Math.floor(random() * 10);
        const limit = 1 + Math.floor(random() * 10);
        const top = new TopK<Ranked<number>>(offset + limit, query.compare);
        typed.forEach((row, position) => {
          if (query.matches(row)) top.push(rank(query.order, row, position, position));
        });
        expect(top.sorted().slice(offset).map((item) => item.item), context).toEqual(expected.slice(offset, offset + limit));

        const again = compileQuery(query.normalised, SCHEMA);
        if (!again.ok) throw new Error(`normalised ${query.normalised.where}: ${again.error.detail}`);
        expect(again.value.normalised, context).toEqual(query.normalised);
        expect(ourRows(again.value, typed), `${context}\nnormalised=${query.normalised.where}`).toEqual(expected);

        const needed = new Set(query.needed);
        const blanked = typed.map((row) => row.map((cell, column) => (needed.has(column) ? cell : null)));
        expect(ourRows(query, blanked), context).toEqual(expected);
      }
      // The generator must produce queries that match something, or the comparison proves little.
      expect(matchedSome).toBeGreaterThan(QUERIES_PER_TABLE / 3);
    });
  }
});

describe("pruning never skips a block that holds a match", () => {
  it("on random blocks of random tables", () => {
    const random = seeded(424242);
    let skipped = 0;
    let blocks = 0;
    for (let n = 0; n < 4; n++) {
      const { rows, typed } = sample(random);
      for (let q = 0; q < 300; q++) {
        const compiled = compileQuery({ where: expression(random, rows, 3).ours }, SCHEMA);
        if (!compiled.ok) throw new Error(compiled.error.detail);
        const query = compiled.value;
        const start = Math.floor(random() * ROWS);
        const block = typed.slice(start, start + 1 + Math.floor(random() * 12));
        // Some columns come without statistics, or with counts but no minimum and maximum.
        const known = statistics(block).map((column) => (random() < 0.1 ? undefined : random() < 0.1 ? { rowCount: column.rowCount, nullCount: column.nullCount } : column));
        const may = blockMayMatch(query.where, known, block.length);
        const has = block.some((row) => query.matches(row));
        blocks++;
        if (!may) skipped++;
        if (has) expect(may, `${query.normalised.where} on rows ${start}…`).toBe(true);
      }
    }
    // Pruning that never prunes would pass the check above; it must skip a fair share.
    expect(skipped).toBeGreaterThan(blocks / 10);
  });
});
