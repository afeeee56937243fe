// The Parquet reader the query scan uses (src/columnar/parquet/read-chunk.ts): our own encoder's
// chunks read back to exactly the cells castCell gives, for every kind it reads; Snappy
// decompression against our compressor and hyparquet's; min/max statistics as cells.
import { snappyUncompress } from "hyparquet";
import { describe, expect, it } from "vitest";
import { encodePart, PAGE_ROWS, snappyCompress } from "../../src/columnar/parquet/index.ts";
import { TRIAL_VALUES } from "../../src/columnar/parquet/column-chunk.ts";
import { ENCODING } from "../../src/columnar/parquet/page-header.ts";
import { readPageHeader } from "../../src/columnar/parquet/page-reader.ts";
import { isoDate } from "../../src/schema/calendar.ts";
import { readChunk, readDictionary, readPages, statisticCell, TEXT_EXACT_KINDS } from "../../src/columnar/parquet/read-chunk.ts";
import { snappyDecompress } from "../../src/columnar/parquet/snappy-decompress.ts";
import { typedRow, type Cell } from "../../src/schema/cast.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { random } from "./helpers/random-table.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "i", type: "integer" },
    { name: "x", type: "number" },
    { name: "b", type: "boolean" },
    { name: "d", type: "date" },
    { name: "s", type: "string" },
    { name: "big", type: "integer" },
    { name: "huge", type: "integer" },
    { name: "mixed", type: "datetime" },
  ],
  missingValues: [""],
};

function table(n: number, seed: number): string[][] {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)]!;
  return Array.from({ length: n }, (_, r) => [
    rnd() < 0.1 ? "" : String(Math.floor(rnd() * 2000) - 1000),
    pick(["", "NaN", "INF", "-INF", "-0", "0.1", "1e300", String(rnd())]),
    pick(["", "true", "false"]),
    pick(["", "0001-01-01", "1969-12-31", "1970-01-01", "2024-02-29", "9999-12-31"]),
    pick(["", "a", "Zürich", "😀", "\uFEFFbom", "日本", `row ${r}`, "x".repeat(300)]),
    pick(["", "9007199254740993", "-9223372036854775808", "9223372036854775807", "7"]),
    pick(["", "123456789012345678901234567", "-99999999999999999999999999999999999999", "1"]),
    pick(["", "2024-01-01T00:00:00Z", "2024-01-01 10:00:00"]),
  ]);
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

describe("the Parquet chunk reader", () => {
  it.each([1, 7, 5000, 20_000])("reads %i rows back to castCell's cells, in every row group, dictionary or PLAIN", (n) => {
    const rows = table(n, n);
    const part = encodePart(SCHEMA, rows, undefined, { rowGroupRows: 3000 });
    // A few rows may hold no value that widens a kind; many rows hold every kind.
    if (n >= 100) expect(part.metadata.kinds).toEqual(["int64", "double", "boolean", "date", "string", "int64", "decimal", "string"]);
    const bytes = concat(part.bytes);
    const missing = new Set(SCHEMA.missingValues);
    const typed = rows.map((row) => typedRow(SCHEMA, missing, row));
    let first = 0;
    for (const group of part.metadata.rowGroups) {
      group.columns.forEach((chunk, c) => {
        const kind = part.metadata.kinds[c]!;
        if (!TEXT_EXACT_KINDS.has(kind)) return expect(n).toBeLessThan(100);
        const cells = readChunk(bytes.subarray(chunk.offset, chunk.offset + chunk.compressed), group.rows, kind, SCHEMA.fields[c]!.type);
        const expected: Cell[] = typed.slice(first, first + group.rows).map((row) => row[c]!);
        expect(cells, `column ${c}`).toEqual(expected);
        // Reading only some rows gives those rows' cells; the others, of every kind, are not decoded (null).
        const wanted = Uint8Array.from({ length: group.rows }, (_, r) => (r % 3 === 0 ? 1 : 0));
        const some = readChunk(bytes.subarray(chunk.offset, chunk.offset + chunk.compressed), group.rows, kind, SCHEMA.fields[c]!.type, wanted);
        expect(some.filter((_, r) => wanted[r] === 1), `column ${c}, some rows`).toEqual(expected.filter((_, r) => wanted[r] === 1));
        expect(some.filter((_, r) => wanted[r] === 0).every((cell) => cell === null), `column ${c}, rows not wanted`).toBe(true);
        // Statistics bound the chunk's values (text only for a string field).
        if (chunk.min !== null && chunk.max !== null && c !== 1) {
          const min = statisticCell(chunk.min, kind, SCHEMA.fields[c]!.type);
          const max = statisticCell(chunk.max, kind, SCHEMA.fields[c]!.type);
          if (SCHEMA.fields[c]!.type === "datetime") expect(min).toBeUndefined();
          else expect([min, max].every((bound) => bound !== undefined)).toBe(true);
        }
      });
      first += group.rows;
    }
    expect(first).toBe(n);
  });

  it("reads datetimes and times back as written where every cell of the chunk is in the form it renders", () => {
    const schema: TableSchema = {
      fields: [
        { name: "utc", type: "datetime" },
        { name: "local", type: "datetime" },
        { name: "clock", type: "time" },
        { name: "spaced", type: "datetime" },
        { name: "offset", type: "datetime" },
        { name: "digits", type: "datetime" },
        { name: "leap", type: "datetime" },
        { name: "nanos", type: "time" },
      ],
      missingValues: [""],
    };
    const rows = [
      ["0001-01-01T00:00:00.000Z", "1600-06-30T01:02:03.50", "00:00:00.125", "2024-01-01 10:00:00Z", "2024-01-01T10:00:00+02:00", "2024-01-01T10:00:00.5Z", "2016-12-31T23:59:60Z", "10:00:00.123456789"],
      ["1969-12-31T23:59:59.999Z", "2024-02-29T12:00:00.00", "23:59:59.999", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00.25Z", "2016-12-31T23:59:59Z", "10:00:00"],
      ["", "", "", "", "", "", "", ""],
      ["9999-12-31T23:59:59.100Z", "9999-12-31T23:59:59.99", "12:30:00.500", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00.250Z", "2017-01-01T00:00:00Z", "10:00:00"],
      ["2262-04-11T23:47:16.854Z", "1970-01-01T00:00:00.00", "08:00:00.000", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00.250Z", "2017-01-01T00:00:00Z", "10:00:00"],
    ];
    const part = encodePart(schema, rows, undefined, { pageRows: 2 });
    const group = part.metadata.rowGroups[0]!;
    expect(part.metadata.kinds.slice(0, 3)).toEqual(["timestamp-utc", "timestamp-local", "time"]);
    expect(group.columns.map((chunk) => chunk.instantDigits)).toEqual([3, 2, 3, null, null, null, null, null]);
    const bytes = concat(part.bytes);
    for (const c of [0, 1, 2]) {
      const chunk = group.columns[c]!;
      const expected = rows.map((row) => row[c] || null);
      const whole = bytes.subarray(chunk.offset, chunk.offset + chunk.compressed);
      expect(readChunk(whole, rows.length, part.metadata.kinds[c]!, schema.fields[c]!.type, null, chunk.instantDigits)).toEqual(expected);
      // The last page alone: its rows as written.
      const last = chunk.pageOffsets.length - 1;
      const page = { bytes: bytes.subarray(chunk.offset + chunk.pageOffsets[last]!, chunk.offset + chunk.pageOffsets[last]! + chunk.pageSizes[last]!), firstRow: chunk.pageFirstRows[last]! };
      const dictionary = chunk.dictionary ? bytes.subarray(chunk.offset, chunk.offset + chunk.pageOffsets[0]!) : null;
      const some = readPages({ dictionary, pages: [page] }, page.firstRow, rows.length, part.metadata.kinds[c]!, schema.fields[c]!.type, null, chunk.instantDigits);
      expect(some).toEqual({ from: page.firstRow, to: rows.length, cells: expected.slice(page.firstRow) });
    }
  });

  // Twins written before pages were bounded by PAGE_ROWS (8,192 rows) read the same: the reader
  // takes each page's rows from the metadata, never from the writer's bounds.
  it.each([
    [PAGE_ROWS, undefined],
    [8192, 1 << 20],
  ])("reads a middle page alone, with pages of %i rows at most", (pageRows, pageBytes) => {
    const n = 3 * pageRows + 77;
    const rnd = random(5);
    const rows = Array.from({ length: n }, (_, i) => [String(i), (rnd() * 100).toFixed(2), i % 5 === 0 ? "" : String(i % 2 === 0), "2024-02-29", `name-${i % 300}`, `unique-${i}`]);
    const schema: TableSchema = { fields: [...SCHEMA.fields.slice(0, 5), { name: "u", type: "string" }], missingValues: [""] };
    const part = encodePart(schema, rows, undefined, pageBytes === undefined ? { pageRows } : { pageRows, pageBytes });
    const group = part.metadata.rowGroups[0]!;
    const bytes = concat(part.bytes);
    for (const [c, chunk] of group.columns.entries()) {
      expect(chunk.pageFirstRows).toEqual([0, pageRows, 2 * pageRows, 3 * pageRows]);
      const cells = rows.map((row) => typedRow(schema, new Set([""]), row)[c]!);
      const page = { bytes: bytes.subarray(chunk.offset + chunk.pageOffsets[1]!, chunk.offset + chunk.pageOffsets[1]! + chunk.pageSizes[1]!), firstRow: pageRows };
      const dictionary = chunk.dictionary ? bytes.subarray(chunk.offset, chunk.offset + chunk.pageOffsets[0]!) : null;
      const some = readPages({ dictionary, pages: [page] }, pageRows, 2 * pageRows, part.metadata.kinds[c]!, schema.fields[c]!.type, null, chunk.instantDigits);
      expect(some).toEqual({ from: pageRows, to: 2 * pageRows, cells: cells.slice(pageRows, 2 * pageRows) });
      // A dictionary decoded once (as the query's isolate keeps it) reads the page the same, again and again.
      if (dictionary !== null) {
        const decoded = readDictionary(dictionary, part.metadata.kinds[c]!, schema.fields[c]!.type, chunk.instantDigits);
        for (let k = 0; k < 2; k++) expect(readPages({ dictionary: decoded, pages: [page] }, pageRows, 2 * pageRows, part.metadata.kinds[c]!, schema.fields[c]!.type, null, chunk.instantDigits)).toEqual(some);
      }
    }
    // One date or 300 names keep their dictionaries, distinct values drop theirs at the first page (booleans have none).
    expect(group.columns.map((chunk) => chunk.dictionary)).toEqual([false, false, false, true, true, false]);
  });

  it("tries a dictionary on the chunk's first TRIAL_VALUES values, not on its first page alone", () => {
    const rnd = random(17);
    const n = 20_000;
    // About 80 % of a 1,024-row page's days are distinct, 40 % of the trial's: the dictionary stays.
    // Codes from 3,000 are more than half distinct over the trial: its pages keep the dictionary, the rest go PLAIN.
    // Unique names are dropped at the first page.
    const rows = Array.from({ length: n }, (_, i) => [isoDate(Math.floor(rnd() * 1826)), `code-${Math.floor(rnd() * 3000)}`, `unique-${i}`]);
    const schema: TableSchema = { fields: [{ name: "d", type: "date" }, { name: "c", type: "string" }, { name: "u", type: "string" }], missingValues: [""] };
    const part = encodePart(schema, rows, undefined, { rowGroupRows: n });
    const group = part.metadata.rowGroups[0]!;
    const bytes = concat(part.bytes);
    const [days, codes, names] = group.columns;
    expect(days!.dictionary && codes!.dictionary && !names!.dictionary).toBe(true);
    const encodings = (c: number) => group.columns[c]!.pageOffsets.map((offset) => readPageHeader(bytes, group.columns[c]!.offset + offset).encoding);
    const trialPages = TRIAL_VALUES / PAGE_ROWS;
    expect(encodings(0).every((encoding) => encoding === ENCODING.RLE_DICTIONARY)).toBe(true);
    expect(encodings(1)).toEqual(Array.from({ length: Math.ceil(n / PAGE_ROWS) }, (_, p) => (p < trialPages ? ENCODING.RLE_DICTIONARY : ENCODING.PLAIN)));
    expect(encodings(2).every((encoding) => encoding === ENCODING.PLAIN)).toBe(true);
    for (const [c, chunk] of group.columns.entries()) {
      const cells = readChunk(bytes.subarray(chunk.offset, chunk.offset + chunk.compressed), group.rows, part.metadata.kinds[c]!, schema.fields[c]!.type);
      expect(cells, `column ${c}`).toEqual(rows.map((row) => typedRow(schema, new Set([""]), row)[c]!));
    }
  });

  it("writes days as ISO dates from year 0001 to 9999", () => {
    expect(isoDate(0)).toBe("1970-01-01");
    expect(isoDate(-1)).toBe("1969-12-31");
    expect(isoDate(-719162)).toBe("0001-01-01");
    expect(isoDate(2932896)).toBe("9999-12-31");
  });
});

describe("Snappy decompression", () => {
  it.each([0, 1, 60, 61, 4096, 65_536, 65_537, 300_000])("inverts the compressor on %i bytes of mixed input, as hyparquet does", (n) => {
    const rnd = random(n + 11);
    const input = Uint8Array.from({ length: n }, (_, i) => (i % 500 < 250 ? Math.floor(rnd() * 256) : i % 7));
    const compressed = snappyCompress(input);
    expect(Buffer.from(snappyDecompress(compressed)).equals(Buffer.from(input))).toBe(true);
    const theirs = new Uint8Array(n);
    snappyUncompress(compressed, theirs);
    expect(Buffer.from(theirs).equals(Buffer.from(input))).toBe(true);
  });

  it("refuses a copy before the start and a length that does not add up", () => {
    expect(() => snappyDecompress(Uint8Array.from([4, 0x01 | (0 << 2), 5]))).toThrow(/snappy/);
    expect(() => snappyDecompress(Uint8Array.from([9, 0x00, 65]))).toThrow(/snappy/);
  });
});
