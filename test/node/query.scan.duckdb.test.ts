// The query scan (src/query/scan.ts) on both of its sources against DuckDB: seeded random tables
// of every field type (nulls, ties, non-ASCII text, NaN, big integers, dates before 1970),
// encoded as Parquet parts with small row groups of smaller pages and read through the twin
// source (row group and page pruning included), and as CSV segments read through the segment source; random queries from the
// grammar. `matched`, the window's rows and their order, the unordered export and the sorted
// export's passes must all be DuckDB's answer. The routes over R2 are tested in workerd
// (test/query.rows.test.ts); this is the breadth.
import type { DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodePart, encodePartMetadata, type ColumnKind } from "../../src/columnar/parquet/index.ts";
import { compileQuery, whereColumns, type CompiledQuery } from "../../src/query/language/query.ts";
import { answerWindow, matchingRows, orderedPass, project, type ScanPiece } from "../../src/query/scan.ts";
import { castMatching, castRows } from "../../src/query/cast-rows.ts";
import { twinPieces, type TwinPart } from "../../src/query/twin-source.ts";
import { legacyPartMetadata } from "../helpers/legacy-part-metadata.ts";
import type { Cell } from "../../src/schema/cast.ts";
import type { Ranked } from "../../src/query/language/ordering.ts";
import { expression, FIELDS, ordering, SCHEMA, seeded, sqlCell, table, type Random, loadTable, openDuckdb } from "./helpers/query-tables.ts";

const TABLES = 5;
const ROWS = 240;
const QUERIES_PER_TABLE = 50;
const BUDGET = 1e12;

let connection: DuckDBConnection;

beforeAll(async () => {
  connection = await openDuckdb();
});

afterAll(() => {
  connection?.closeSync();
});

const load = (rows: readonly string[][]) => loadTable(connection, rows);

async function duck(sql: string): Promise<number[]> {
  return (await connection.runAndReadAll(sql)).getRows().map((row) => Number(row[0]));
}

interface Stored {
  parts: TwinPart[];
  objects: Map<string, Uint8Array>;
  groups: number;
}

function concat(pieces: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The table as the twin stores it: parts (one per "segment") of row groups, each with its metadata after it. */
function storeTwin(name: string, rows: readonly string[][], cuts: readonly number[], rowGroupRows: number, pageRows: number): Stored {
  const kinds: ColumnKind[] = encodePart(SCHEMA, rows).metadata.kinds;
  const objects = new Map<string, Uint8Array>();
  const parts: TwinPart[] = [];
  let groups = 0;
  const bounds = [0, ...cuts, rows.length];
  for (let p = 0; p + 1 < bounds.length; p++) {
    const slice = rows.slice(bounds[p], bounds[p + 1]);
    const part = encodePart(SCHEMA, slice, kinds, { rowGroupRows, pageRows });
    const data = concat(part.bytes);
    // Every other part as twins built before version 3 stored it, its pages in the head: a
    // version's parts may be of both forms (an append reuses its parent's), and both must read.
    const stored = p % 2 === 0 ? encodePartMetadata(part.metadata) : { head: legacyPartMetadata(part.metadata, 2), pages: "" };
    const meta = new TextEncoder().encode(stored.head);
    // Unique, as the service's part keys are: a part's metadata is kept by key (twin-source.ts).
    const key = `${name}-part-${p}`;
    // No statistics summary here: the pages follow the head.
    objects.set(key, concat([data, meta, new TextEncoder().encode(stored.pages)]));
    parts.push({ key, dataBytes: data.length, metaBytes: meta.length, summaryBytes: 0 });
    groups += part.metadata.rowGroups.length;
  }
  return { parts, objects, groups };
}

/** The table as CSV segments: cell texts in pieces, cast as the segment source casts them (castMatching). */
function segmentPieces(rows: readonly string[][], cuts: readonly number[], query: CompiledQuery): ScanPiece[] {
  const missing = new Set(SCHEMA.missingValues);
  const bounds = [0, ...cuts, rows.length];
  return bounds.slice(0, -1).map((from, p) => {
    const slice = rows.slice(from, bounds[p + 1]);
    return {
      rowCount: slice.length,
      firstRow: from,
      cost: () => slice.length,
      rows: async function* (columns: readonly number[]) {
        // In batches, as a segment streams.
        for (let at = 0; at < slice.length; at += 17) yield castMatching(SCHEMA, missing, query, slice.slice(at, at + 17), columns, from + at);
      },
    };
  });
}

/** Rows as the routes write them: JSON, where -0 and 0 are one number (castCell keeps `-0` as -0, Parquet's int64 cannot). */
const wire = (rows: readonly Cell[][]) => JSON.parse(JSON.stringify(rows)) as unknown;

async function collect(batches: AsyncGenerator<Cell[][]>): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

async function sortedExport(pieces: readonly ScanPiece[], query: CompiledQuery, size: number): Promise<Cell[][]> {
  const out: Cell[][] = [];
  let after: Ranked<Cell[]> | null = null;
  for (;;) {
    const pass = await orderedPass(pieces, query, size, after);
    out.push(...pass.rows.map((item) => project(query, item.item)));
    if (pass.rows.length < size) return out;
    after = pass.rows.at(-1)!;
  }
}

describe("the query scan answers as DuckDB does, from Parquet and from CSV segments", () => {
  for (let seed = 1; seed <= TABLES; seed++) {
    it(`table ${seed}`, async () => {
      const random: Random = seeded(seed * 104729);
      const rows = table(random, ROWS);
      // Sorted on one column in some tables, so row groups have narrow ranges to prune by.
      if (seed % 2 === 0) rows.sort((a, b) => Number(a[0] || 0) - Number(b[0] || 0));
      await load(rows);
      const missing = new Set(SCHEMA.missingValues);
      const typed = castRows(SCHEMA, missing, rows, SCHEMA.fields.map((_, i) => i));
      const cuts = [Math.floor(ROWS / 3), Math.floor(ROWS / 3) + 7];
      // Pages of a few rows, so the page bounds rule out row ranges inside a row group too.
      const twin = storeTwin(`table-${seed}`, rows, cuts, 16, 3 + (seed % 3));
      const read = async (key: string, offset: number, length: number) => twin.objects.get(key)!.slice(offset, offset + length);
      let pruned = 0;
      let viaTwin = 0;
      for (let q = 0; q < QUERIES_PER_TABLE; q++) {
        const where = expression(random, rows, 3);
        const order = random() < 0.6 ? ordering(random) : { ours: "", sql: "rownum" };
        const columns = FIELDS.filter(() => random() < 0.4).map((field) => (field.name.includes(",") ? `"${field.name}"` : field.name));
        const compiled = compileQuery({ where: where.ours, order: order.ours, columns: columns.join(",") }, SCHEMA);
        if (!compiled.ok) throw new Error(`${where.ours}: ${compiled.error.detail}`);
        const query = compiled.value;
        const context = `where=${where.ours}\norder=${order.ours}\ncolumns=${columns.join(",")}`;
        const expectedOrder = await duck(`SELECT rownum FROM t WHERE ${where.sql} ORDER BY ${order.sql}`);
        const expectedRows = expectedOrder.map((n) => project(query, typed[n]!));
        const offset = Math.floor(random() * 12);
        const limit = 1 + Math.floor(random() * 15);

        const fromTwin = await twinPieces(read, twin.parts, SCHEMA, query);
        // The twin answers unless a time is compared, or answered where some cell of it is not written as the twin renders it.
        const needsTime = query.needed.some((c) => SCHEMA.fields[c]!.type === "time");
        if (!needsTime) expect(fromTwin, context).not.toBeNull();
        const sources: [string, ScanPiece[]][] = [["csv", segmentPieces(rows, cuts, query)]];
        if (fromTwin !== null) {
          sources.push(["parquet", fromTwin.pieces]);
          viaTwin++;
          if (fromTwin.pieces.length < twin.groups) pruned++;
        }
        // Allowed to leave answered time cells to the caller, the twin answers whenever time is only answered.
        const filled = await twinPieces(read, twin.parts, SCHEMA, query, true);
        const comparesTime = [...whereColumns(query.where, new Set(query.order.map((term) => term.column)))].some((c) => SCHEMA.fields[c]!.type === "time");
        expect(filled === null, context).toBe(comparesTime);
        if (filled !== null && filled.fill.length > 0) {
          const answer = await answerWindow(filled.pieces, query, { offset, limit, maxChars: 1e9, budget: BUDGET }, filled.read);
          // What the caller fills (fill-rows.ts reads these from the CSV), filled here from the table.
          for (const [i, row] of answer.rows.entries()) for (const c of filled.fill) row[query.columns.indexOf(c)] = typed[answer.positions[i]!]![c]!;
          expect(answer.matched, `filled: ${context}`).toBe(expectedOrder.length);
          expect(wire(answer.rows), `filled: ${context}`).toEqual(wire(expectedRows.slice(offset, offset + limit)));
        }
        for (const [name, pieces] of sources) {
          const answer = await answerWindow(pieces, query, { offset, limit, maxChars: 1e9, budget: BUDGET });
          expect(answer.matched, `${name}: ${context}`).toBe(expectedOrder.length);
          expect(answer.partial).toBe(false);
          expect(wire(answer.rows), `${name}: ${context}\noffset=${offset} limit=${limit}`).toEqual(wire(expectedRows.slice(offset, offset + limit)));
          if (query.order.length === 0) {
            const all = await collect(matchingRows(pieces, query));
            expect(wire(all), `${name} export: ${context}`).toEqual(wire(expectedRows));
          } else {
            expect(wire(await sortedExport(pieces, query, 25 + Math.floor(random() * 50))), `${name} sorted export: ${context}`).toEqual(wire(expectedRows));
          }
        }
      }
      expect(viaTwin).toBeGreaterThan(QUERIES_PER_TABLE / 5);
      expect(pruned).toBeGreaterThan(0);
    });
  }
});
