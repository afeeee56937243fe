// Files written by the Parquet encoder (src/columnar/parquet), read back by DuckDB and hyparquet:
// every cell equals castCell's value of the CSV cell, types and statistics are the documented ones
// (docs/columnar.md), and a file stitched from many parts reads as the rows concatenated.
import { readColumnIndex, readOffsetIndex } from "hyparquet";
import { describe, expect, it } from "vitest";
import { type ColumnKind, decodePartMetadata, encodePart, encodePartMetadata, joinParquet, type PartMetadata, planKinds, startKinds, TailWriter, writeTail } from "../../src/columnar/parquet/index.ts";
import { PAGE_BYTES, PAGE_ROWS } from "../../src/columnar/parquet/column-chunk.ts";
import { fieldNames } from "../../src/schema/field-names.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { decimalsAsDoubles, duckRows, expectedRows, hyparquetMetadata, readWithDuckDB, readWithHyparquet, writeTemp } from "./helpers/parquet-oracle.ts";
import { random, randomTable } from "./helpers/random-table.ts";

type Rows = string[][];

/** Part metadata through its stored form, head and pages. */
function roundTrip(metadata: PartMetadata): PartMetadata {
  const stored = encodePartMetadata(metadata);
  return decodePartMetadata(stored.head, stored.pages);
}

/** Encodes `segments` as parts (re-encoding those whose kinds the file widens), stitches them, and returns the file. */
function stitch(schema: TableSchema, segments: Rows[], options = {}): { bytes: Uint8Array; kinds: ColumnKind[]; parts: PartMetadata[] } {
  let kinds = startKinds(schema);
  const encoded = segments.map((rows) => encodePart(schema, rows, kinds, options));
  let metas = encoded.map((part) => roundTrip(part.metadata));
  const plan = planKinds(metas);
  kinds = plan.kinds;
  for (const p of plan.reencode) {
    encoded[p] = encodePart(schema, segments[p]!, kinds, options);
    metas[p] = roundTrip(encoded[p]!.metadata);
  }
  metas = metas.map((meta) => ({ ...meta }));
  const tail = writeTail(schema, metas);
  return { bytes: joinParquet(encoded.map((part) => part.bytes), tail), kinds, parts: metas };
}

async function expectReadsBack(name: string, schema: TableSchema, segments: Rows[], options = {}): Promise<{ path: string; kinds: ColumnKind[]; bytes: Uint8Array }> {
  const { bytes, kinds } = stitch(schema, segments, options);
  const path = writeTemp(name, bytes);
  const expected = expectedRows(schema, kinds, segments.flat());
  expect(await readWithDuckDB(path)).toEqual(expected);
  expect(await readWithHyparquet(bytes, schema, kinds)).toEqual(decimalsAsDoubles(expected, kinds));
  return { path, kinds, bytes };
}

const EDGE_SCHEMA: TableSchema = {
  fields: [
    { name: "int", type: "integer" },
    { name: "int_big", type: "integer" },
    { name: "int_huge", type: "integer" },
    { name: "num", type: "number" },
    { name: "flag", type: "boolean" },
    { name: "day", type: "date" },
    { name: "at_zoned", type: "datetime" },
    { name: "at_local", type: "datetime" },
    { name: "at_mixed", type: "datetime" },
    { name: "clock", type: "time" },
    { name: "text", type: "string" },
    { name: "empty", type: "integer" },
  ],
  missingValues: ["", "NA"],
};

const EDGE_ROWS: Rows = [
  ["9007199254740993", "9223372036854775807", "1" + "0".repeat(38), "NaN", "TRUE", "1969-12-31", "2024-02-29T23:59:59.123456789Z", "2024-02-29 12:00:00", "2024-01-01T00:00:00Z", "00:00:00", "😀 astral", ""],
  ["-9223372036854775808", "-9223372036854775809", "-5", "INF", "false", "0001-01-01", "1900-01-01T00:00:00+14:00", "1600-06-30T01:02:03.5", "2024-01-01T00:00:00", "23:59:59.999999", "\uE000 after surrogates", "NA"],
  ["+42", "99999999999999999999999999999999999999", "", "-INF", "tRuE", "9999-12-31", "9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59.000001", "", "12:30:00.5", "Zürich 東京", ""],
  ["007", "", "12", "-0", "NA", "1970-01-01", "1970-01-01t00:00:00z", "1970-01-01T00:00:00", "2024-01-01 10:00:00+02:00", "NA", "", "NA"],
  ["", "1", "3", "1.5e-7", "False", "2000-02-29", "", "", "2024-01-01T00:00:00", "01:02:03", "NA", ""],
];

describe("Parquet encoder read back by DuckDB and hyparquet", () => {
  it("reads every edge cell back as castCell casts it, with the documented types", async () => {
    const { path, kinds } = await expectReadsBack("edges", EDGE_SCHEMA, [EDGE_ROWS]);
    expect(kinds).toEqual(["int64", "decimal", "string", "double", "boolean", "date", "timestamp-utc", "timestamp-local", "string", "time", "string", "int64"]);
    const types = await duckRows(`select name, type, logical_type, converted_type from parquet_schema('${path}') where name <> 'schema'`);
    expect(types.map((row) => row.slice(0, 2))).toEqual([
      ["int", "INT64"],
      ["int_big", "FIXED_LEN_BYTE_ARRAY"],
      ["int_huge", "BYTE_ARRAY"],
      ["num", "DOUBLE"],
      ["flag", "BOOLEAN"],
      ["day", "INT32"],
      ["at_zoned", "INT64"],
      ["at_local", "INT64"],
      ["at_mixed", "BYTE_ARRAY"],
      ["clock", "INT64"],
      ["text", "BYTE_ARRAY"],
      ["empty", "INT64"],
    ]);
    const logical = types.map((row) => String(row[2]));
    expect(logical[1]).toContain("DecimalType(scale=0, precision=38)");
    expect(logical[6]).toContain("TimestampType(isAdjustedToUTC=1");
    expect(logical[7]).toContain("TimestampType(isAdjustedToUTC=0");
    expect(logical[9]).toContain("TimeType(isAdjustedToUTC=0");
    expect(types.map((row) => row[3])).toEqual([null, "DECIMAL", "UTF8", null, null, "DATE", "TIMESTAMP_MICROS", null, "UTF8", null, "UTF8", null]);
    const duckTypes = await duckRows(`select column_type from (describe select * from read_parquet('${path}'))`);
    expect(duckTypes.map((row) => row[0])).toEqual(["BIGINT", "DECIMAL(38,0)", "VARCHAR", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP", "VARCHAR", "TIME", "VARCHAR", "BIGINT"]);
  });

  it("writes min/max in Parquet's binary form and null counts, leaving NaN out, and an offset index per chunk", async () => {
    const { path, bytes } = await expectReadsBack("stats", EDGE_SCHEMA, [EDGE_ROWS]);
    const stats = await duckRows(`select path_in_schema, stats_min_value, stats_max_value, stats_null_count from parquet_metadata('${path}')`);
    const byName = new Map(stats.map((row) => [String(row[0]), row.slice(1).map((v) => (v === null ? null : String(v)))]));
    expect(byName.get("int")).toEqual(["-9223372036854775808", "9007199254740993", "1"]);
    expect(byName.get("int_big")).toEqual(["-9223372036854775809", "99999999999999999999999999999999999999", "1"]);
    // DuckDB shows infinite bounds as null; hyparquet shows them below. NaN is left out.
    expect(byName.get("num")).toEqual([null, null, "0"]);
    expect(byName.get("flag")).toEqual(["false", "true", "1"]);
    expect(byName.get("day")).toEqual(["0001-01-01", "9999-12-31", "0"]);
    expect(byName.get("text")).toEqual(["Zürich 東京", "😀 astral", "2"]);
    expect(byName.get("empty")).toEqual([null, null, "5"]);
    const meta = hyparquetMetadata(bytes);
    const num = meta.row_groups[0]!.columns[3]!.meta_data!.statistics!;
    expect([num.min_value, num.max_value]).toEqual([-Infinity, Infinity]);
    for (const column of meta.row_groups[0]!.columns) {
      expect(column.offset_index_offset).toBeGreaterThan(0n);
      expect(column.offset_index_length).toBeGreaterThan(0);
      expect(column.column_index_offset).toBeGreaterThan(0n);
      expect(column.column_index_offset).toBeLessThan(column.offset_index_offset!);
    }
    expect(meta.created_by).toBe("pubset");
    expect(JSON.parse(meta.key_value_metadata!.find((kv) => kv.key === "pubset.schema")!.value!)).toEqual(EDGE_SCHEMA);
  });

  it("prunes row groups with its statistics: a filter reads back the same rows", async () => {
    const rows: Rows = Array.from({ length: 3000 }, (_, i) => [String(i), `name-${String(i).padStart(5, "0")}`]);
    const schema: TableSchema = { fields: [{ name: "id", type: "integer" }, { name: "name", type: "string" }], missingValues: [""] };
    const { path } = await expectReadsBack("prune", schema, [rows], { rowGroupRows: 500 });
    const groups = await duckRows(`select row_group_id, stats_min_value, stats_max_value from parquet_metadata('${path}') where path_in_schema = 'name' order by row_group_id`);
    expect(groups.length).toBe(6);
    expect(groups[1]!.slice(1)).toEqual(["name-00500", "name-00999"]);
    expect(await duckRows(`select count(*) from read_parquet('${path}') where id between 700 and 1200 and name >= 'name-00800'`)).toEqual([[401n]]);
  });

  it("writes a column index: each page's min, max and null count, pages of at most PAGE_ROWS rows", async () => {
    const P = PAGE_ROWS;
    const n = 2 * P + 400;
    const rows: Rows = Array.from({ length: n }, (_, i) => [String(i), i >= P && i < 2 * P ? "" : `city-${i % 7}`, i < P ? "" : String(i % 3 === 0)]);
    const schema: TableSchema = { fields: [{ name: "id", type: "integer" }, { name: "city", type: "string" }, { name: "flag", type: "boolean" }], missingValues: [""] };
    const { bytes } = await expectReadsBack("column-index", schema, [rows]);
    const meta = hyparquetMetadata(bytes);
    const columnIndex = (c: number) => {
      const column = meta.row_groups[0]!.columns[c]!;
      const view = new DataView(bytes.buffer, bytes.byteOffset + Number(column.column_index_offset), column.column_index_length!);
      return readColumnIndex({ view, offset: 0 }, meta.schema[c + 1]!);
    };
    const offsets = (c: number) => {
      const column = meta.row_groups[0]!.columns[c]!;
      const view = new DataView(bytes.buffer, bytes.byteOffset + Number(column.offset_index_offset), column.offset_index_length!);
      return readOffsetIndex({ view, offset: 0 }).page_locations.map((page) => Number(page.first_row_index));
    };
    for (const c of [0, 1, 2]) expect(offsets(c)).toEqual([0, P, 2 * P]);
    const id = columnIndex(0);
    expect(id.null_pages).toEqual([false, false, false]);
    expect(id.min_values).toEqual([0n, BigInt(P), BigInt(2 * P)]);
    expect(id.max_values).toEqual([BigInt(P - 1), BigInt(2 * P - 1), BigInt(n - 1)]);
    expect(id.null_counts).toEqual([0n, 0n, 0n]);
    const city = columnIndex(1);
    expect(city.null_pages).toEqual([false, true, false]);
    expect([city.min_values[0], city.max_values[0], city.min_values[2], city.max_values[2]]).toEqual(["city-0", "city-6", "city-0", "city-6"]);
    expect(city.null_counts).toEqual([0n, BigInt(P), 0n]);
    const flag = columnIndex(2);
    expect(flag.null_pages).toEqual([true, false, false]);
    expect([flag.min_values[1], flag.max_values[1]]).toEqual([false, true]);
  });

  it("keeps duplicate-made-unique and empty header names, and non-ASCII names", async () => {
    const names = fieldNames(["a", "a", "", "ünï 😀", "a"]);
    const schema: TableSchema = { fields: names.map((name) => ({ name, type: "string" })), missingValues: [""] };
    const { path } = await expectReadsBack("names", schema, [[["1", "2", "3", "4", "5"]]]);
    const columns = await duckRows(`select column_name from (describe select * from read_parquet('${path}'))`);
    expect(columns.map((row) => row[0])).toEqual(names);
  });

  it("writes 4,000 columns", async () => {
    const { schema, rows } = randomTable(4000, 4000, 20, 0.2);
    await expectReadsBack("wide", schema, [rows]);
  });

  it("reads a file stitched from 50 parts of random sizes (1-row parts included) as the rows concatenated", async () => {
    const { schema, rows } = randomTable(50, 12, 3000);
    const rnd = random(7);
    const segments: Rows[] = [];
    for (let at = 0; at < rows.length; ) {
      const size = segments.length % 7 === 0 ? 1 : 1 + Math.floor(rnd() * 120);
      segments.push(rows.slice(at, at + size));
      at += size;
    }
    expect(segments.length).toBeGreaterThanOrEqual(50);
    const { path } = await expectReadsBack("stitched", schema, segments, { rowGroupRows: 37 });
    const groups = await duckRows(`select count(distinct row_group_id) from parquet_metadata('${path}')`);
    expect(Number(groups[0]![0])).toBeGreaterThan(segments.length);
  });

  it("writes the same tail from parts added one at a time and dropped, their pages gone once added", async () => {
    const { schema, rows } = randomTable(51, 6, 1200);
    const segments: Rows[] = [rows.slice(0, 1), rows.slice(1, 500), rows.slice(500, 501), rows.slice(501)];
    const { bytes, kinds, parts } = stitch(schema, segments, { rowGroupRows: 150 });
    const tail = new TailWriter(schema);
    for (const part of parts) {
      const copy = roundTrip(part);
      tail.add(copy);
      // What a build drops once the part is added: its pages and their bounds.
      for (const group of copy.rowGroups) {
        for (const chunk of group.columns) {
          chunk.pageOffsets.fill(-1);
          chunk.pageSizes.fill(-1);
          chunk.pageFirstRows.fill(-1);
          if (chunk.pageIndex) chunk.pageIndex.mins.fill(null);
        }
      }
    }
    expect(tail.plan()).toEqual(planKinds(parts));
    const written = tail.finish();
    // Spent once finished: its index buffers and heads are let go of.
    expect(() => tail.finish()).toThrow();
    expect(() => tail.add(parts[0]!)).toThrow();
    const dataBytes = parts.reduce((sum, part) => sum + part.byteLength, 0);
    expect(written).toEqual(bytes.subarray(4 + dataBytes));
    const path = writeTemp("one-at-a-time", joinParquet([[bytes.subarray(4, 4 + dataBytes)]], written));
    expect(await readWithDuckDB(path)).toEqual(expectedRows(schema, kinds, rows));
  });

  it("re-encodes a part whose kinds a later part widens, and refuses to stitch it unwidened", async () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }, { name: "at", type: "datetime" }, { name: "other", type: "integer" }], missingValues: [""] };
    const first: Rows = [["1", "2020-01-01T00:00:00Z", ""], ["2", "2020-01-02T00:00:00Z", ""]];
    const second: Rows = [["123456789012345678901234567890", "2020-01-03T00:00:00Z", "5"]];
    const third: Rows = [["3", "2020-01-04 00:00:00", "6"]];
    const kinds = startKinds(schema);
    const a = encodePart(schema, first, kinds);
    const b = encodePart(schema, second, kinds);
    expect(a.metadata.kinds).toEqual(["int64", "timestamp-utc", "int64"]);
    expect(b.metadata.kinds).toEqual(["decimal", "timestamp-utc", "int64"]);
    expect(planKinds([a.metadata, b.metadata])).toEqual({ kinds: ["decimal", "timestamp-utc", "int64"], reencode: [0] });
    expect(() => writeTail(schema, [a.metadata, b.metadata])).toThrow();
    const c = encodePart(schema, third, ["decimal", "timestamp-utc", "int64"]);
    expect(c.metadata.kinds).toEqual(["decimal", "string", "int64"]);
    const { kinds: finalKinds } = await expectReadsBack("widened", schema, [first, second, third]);
    expect(finalKinds).toEqual(["decimal", "string", "int64"]);
  });

  it("splits long text into pages of about PAGE_BYTES and falls back from a dictionary that outgrows its bound", async () => {
    const rnd = random(11);
    const rows: Rows = Array.from({ length: 24_000 }, (_, i) => [
      i < 6000 ? `label-${i % 10}` : `unique-${i}-${"x".repeat(60 + Math.floor(rnd() * 60))}`,
      `${"long text ".repeat(10)}${i}`,
      String(i % 50),
    ]);
    const schema: TableSchema = { fields: [{ name: "mixed", type: "string" }, { name: "long", type: "string" }, { name: "small", type: "integer" }], missingValues: [""] };
    const { path, bytes } = await expectReadsBack("pages", schema, [rows]);
    const long = hyparquetMetadata(bytes).row_groups[0]!.columns[1]!;
    const start = Number(long.offset_index_offset);
    const index = readOffsetIndex({ view: new DataView(bytes.buffer, bytes.byteOffset + start, long.offset_index_length!), offset: 0 });
    // Each value of `long` is 105 to 109 bytes PLAIN (4 of them its length): a page is cut at the
    // first value that brings it to PAGE_BYTES, well before PAGE_ROWS rows.
    const firstRows = index.page_locations.map((page) => Number(page.first_row_index));
    expect(firstRows[0]).toBe(0);
    const pageRows = firstRows.slice(1).map((row, i) => row - firstRows[i]!);
    for (const count of pageRows) {
      expect(count).toBeGreaterThanOrEqual(Math.ceil(PAGE_BYTES / 109));
      expect(count).toBeLessThanOrEqual(Math.ceil(PAGE_BYTES / 105));
    }
    expect(Number(index.page_locations[0]!.offset)).toBe(Number(long.meta_data!.data_page_offset));
    const meta = await duckRows(`select path_in_schema, encodings, dictionary_page_offset from parquet_metadata('${path}')`);
    expect(meta.map((row) => [row[0], row[1], row[2] !== null])).toEqual([
      ["mixed", "PLAIN, RLE, RLE_DICTIONARY", true],
      ["long", "PLAIN, RLE", false],
      ["small", "PLAIN, RLE, RLE_DICTIONARY", true],
    ]);
  });

  it("keeps empty text when it is not a missing value, and reads declared formats through castCell", async () => {
    const schema: TableSchema = {
      fields: [
        { name: "s", type: "string" },
        { name: "n", type: "integer" },
        { name: "price", type: "number", decimalChar: ",", groupChar: "." },
        { name: "day", type: "date", format: "%d/%m/%Y" },
        { name: "yes", type: "boolean", trueValues: ["y"], falseValues: ["n"] },
        { name: "leap", type: "datetime" },
      ],
      missingValues: ["NA"],
    };
    const rows: Rows = [
      ["", "1", "1.234,5", "31/12/1969", "y", "2016-12-31T23:59:60Z"],
      ["NA", "NA", "NA", "NA", "NA", "NA"],
      ["x", "", "-0,25", "01/01/2000", "n", "2017-01-01T00:00:00Z"],
    ];
    const { kinds } = await expectReadsBack("declared", schema, [rows]);
    expect(kinds).toEqual(["string", "string", "double", "date", "boolean", "timestamp-utc"]);
  });

  it("writes a file of no rows, and parts of no rows among others", async () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }, { name: "s", type: "string" }], missingValues: [""] };
    await expectReadsBack("empty", schema, []);
    await expectReadsBack("empty-parts", schema, [[], [["1", "a"]], [], [["2", ""]]]);
  });

  it.each([1, 2, 3, 4, 5, 6])("matches castCell on seeded random table %i", async (seed) => {
    const { schema, rows } = randomTable(seed, 16, 400);
    const segments = [rows.slice(0, 150), rows.slice(150, 151), rows.slice(151)];
    await expectReadsBack(`random-${seed}`, schema, segments, { rowGroupRows: 64 + seed * 10 });
  });
});
