// The Parquet reader the query scan uses (src/columnar/parquet/read-chunk.ts): our own encoder's
// chunks read back to exactly the cells castCell gives, for every kind it reads; Snappy
// decompression against our compressor and hyparquet's; min/max statistics as cells.
import { snappyUncompress } from "hyparquet";
import { describe, expect, it } from "vitest";
import { encodePart, snappyCompress } from "../../src/columnar/parquet/index.ts";
import { isoDate } from "../../src/schema/calendar.ts";
import { readChunk, statisticCell, TEXT_EXACT_KINDS } from "../../src/columnar/parquet/read-chunk.ts";
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
        // Reading only some rows gives those rows' cells; text of the others is skipped (null).
        const wanted = Uint8Array.from({ length: group.rows }, (_, r) => (r % 3 === 0 ? 1 : 0));
        const some = readChunk(bytes.subarray(chunk.offset, chunk.offset + chunk.compressed), group.rows, kind, SCHEMA.fields[c]!.type, wanted);
        expect(some.filter((_, r) => wanted[r] === 1), `column ${c}, some rows`).toEqual(expected.filter((_, r) => wanted[r] === 1));
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
