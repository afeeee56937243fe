// The Parquet encoder inside workerd: a stitched file of three parts (one re-encoded after a
// widening) written and read back with hyparquet, pure JavaScript, so no Node API is involved.
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { decodePartMetadata, encodePart, encodePartMetadata, joinParquet, planKinds, startKinds, writeTail } from "../src/columnar/parquet/index.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";

const SCHEMA: TableSchema = {
  fields: [
    { name: "id", type: "integer" },
    { name: "price", type: "number" },
    { name: "day", type: "date" },
    { name: "at", type: "datetime" },
    { name: "ok", type: "boolean" },
    { name: "label", type: "string" },
  ],
  missingValues: [""],
};

function rows(from: number, count: number): string[][] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return [String(i), i % 5 === 0 ? "" : `${i}.5`, `2024-01-${String(1 + (i % 28)).padStart(2, "0")}`, `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`, i % 2 ? "true" : "false", `label ${i % 3} 😀`];
  });
}

describe("Parquet encoder in workerd", () => {
  it("stitches parts into a file hyparquet reads back", async () => {
    const segments = [rows(0, 40), rows(40, 1), rows(41, 30)];
    segments[2]![0]![0] = "123456789012345678901234567890";
    const kinds = startKinds(SCHEMA);
    const parts = segments.map((segment) => encodePart(SCHEMA, segment, kinds, { rowGroupRows: 16 }));
    const plan = planKinds(parts.map((part) => part.metadata));
    expect(plan).toEqual({ kinds: ["decimal", "double", "date", "timestamp-utc", "boolean", "string"], reencode: [0, 1] });
    for (const p of plan.reencode) parts[p] = encodePart(SCHEMA, segments[p]!, plan.kinds, { rowGroupRows: 16 });
    const metas = parts.map((part) => {
      const stored = encodePartMetadata(part.metadata);
      return decodePartMetadata(stored.head, stored.pages);
    });
    const file = joinParquet(
      parts.map((part) => part.bytes),
      writeTail(SCHEMA, metas),
    );
    const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    expect(parquetMetadata(buffer).num_rows).toBe(71n);
    const read = await parquetReadObjects({ file: buffer, parsers: { timestampFromMicroseconds: (m: bigint) => m, dateFromDays: (d: number) => d } });
    const all = segments.flat();
    expect(read.length).toBe(all.length);
    read.forEach((row, i) => {
      const cells = all[i]!;
      expect(String(row.id)).toBe(i === 41 ? "1.2345678901234568e+29" : cells[0]);
      expect(row.price).toBe(cells[1] === "" ? null : Number(cells[1]));
      expect(row.day).toBe(19723 + (i % 28));
      expect(row.at).toBe(1704067200000000n + BigInt(i % 60) * 1_000_000n);
      expect(row.ok).toBe(i % 2 === 1);
      expect(row.label).toBe(cells[5]);
    });
  });
});
