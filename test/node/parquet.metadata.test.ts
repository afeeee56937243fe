// Part metadata and kinds (src/columnar/parquet): the stored form round-trips and refuses other
// versions, kinds widen as docs/columnar.md says, and a part that meets a wider value reports it.
import { describe, expect, it } from "vitest";
import { decodePartMetadata, encodePart, encodePartMetadata, PART_METADATA_VERSION, PartWriter, ROW_GROUP_BYTES, startKinds, unifyKind } from "../../src/columnar/parquet/index.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { randomTable } from "./helpers/random-table.ts";

describe("part metadata", () => {
  it("round-trips through its stored form", () => {
    const { schema, rows } = randomTable(3, 10, 200);
    const { metadata } = encodePart(schema, rows, startKinds(schema), { rowGroupRows: 60 });
    const stored = encodePartMetadata(metadata);
    expect(JSON.parse(stored).v).toBe(PART_METADATA_VERSION);
    expect(decodePartMetadata(stored)).toEqual(metadata);
    expect(metadata.rowGroups.map((group) => group.rows)).toEqual([60, 60, 60, 20]);
  });

  it("refuses another version and malformed documents", () => {
    const { schema, rows } = randomTable(4, 3, 5);
    const stored = JSON.parse(encodePartMetadata(encodePart(schema, rows).metadata));
    expect(() => decodePartMetadata(JSON.stringify({ ...stored, v: PART_METADATA_VERSION + 1 }))).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...stored, v: 1 }))).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...stored, kinds: ["int128", "string", "string"] }))).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...stored, groups: [[5, []]] }))).toThrow();
  });

  it("reads a part written before pages had bounds (version 1): its chunks have no page index", () => {
    const { schema, rows } = randomTable(5, 4, 50);
    const { metadata } = encodePart(schema, rows);
    const stored = JSON.parse(encodePartMetadata(metadata)) as { groups: [number, unknown[][]][] };
    const v1 = { ...stored, v: 1, groups: stored.groups.map(([count, chunks]) => [count, chunks.map((chunk) => chunk.slice(0, 12))]) };
    const read = decodePartMetadata(JSON.stringify(v1));
    expect(read.rowGroups.flatMap((group) => group.columns.map((chunk) => chunk.pageIndex))).toEqual(metadata.rowGroups.flatMap((group) => group.columns.map(() => null)));
    expect(read.rowGroups[0]!.columns[0]!.pageOffsets).toEqual(metadata.rowGroups[0]!.columns[0]!.pageOffsets);
  });
});

describe("part writer", () => {
  it("cuts a row group at ROW_GROUP_BYTES of cell text and hands its bytes out before the part ends", () => {
    const schema: TableSchema = { fields: [{ name: "text", type: "string" }, { name: "n", type: "integer" }], missingValues: [""] };
    const writer = new PartWriter(schema, startKinds(schema));
    let streamed = 0;
    for (let i = 0; i < 20_000; i++) {
      writer.addRow([`${i} ${"x".repeat(1000)}`, String(i)]);
      for (const piece of writer.takeBytes()) streamed += piece.length;
    }
    expect(streamed).toBeGreaterThan(0);
    const result = writer.finish();
    if (!result.ok) throw new Error("unexpected widening");
    for (const piece of writer.takeBytes()) streamed += piece.length;
    expect(streamed).toBe(result.metadata.byteLength);
    const groups = result.metadata.rowGroups.map((group) => group.rows);
    expect(groups.length).toBe(3);
    expect(groups.reduce((a, b) => a + b, 0)).toBe(20_000);
    // Cell text and one byte per cell for its separator; the bound is checked every 1,024 rows.
    const rowBytes = (i: number) => 2 * String(i).length + 1001 + 2;
    let firstGroup = 0;
    for (let i = 0; i < groups[0]!; i++) firstGroup += rowBytes(i);
    expect(firstGroup).toBeGreaterThanOrEqual(ROW_GROUP_BYTES);
    expect(firstGroup - 1024 * rowBytes(groups[0]!)).toBeLessThan(ROW_GROUP_BYTES);
  });
});

describe("column kinds", () => {
  it("widen int64 ⊂ decimal ⊂ string and resolve timestamps, utc and local meeting as string", () => {
    expect(unifyKind("int64", "decimal")).toBe("decimal");
    expect(unifyKind("decimal", "string")).toBe("string");
    expect(unifyKind("timestamp", "timestamp-local")).toBe("timestamp-local");
    expect(unifyKind("timestamp-utc", "timestamp-local")).toBe("string");
    expect(unifyKind("date", "string")).toBe("string");
    expect(unifyKind("double", "double")).toBe("double");
  });

  it("report every widening a part needs at once, reading on past the first", () => {
    const schema: TableSchema = {
      fields: [{ name: "n", type: "integer" }, { name: "t", type: "time" }, { name: "at", type: "datetime" }, { name: "b", type: "boolean" }],
      missingValues: [""],
    };
    const writer = new PartWriter(schema, startKinds(schema));
    expect(writer.addRow(["1", "10:00:00", "2020-01-01T00:00:00", "true"])).toBe(true);
    expect(writer.addRow(["18446744073709551616", "10:00:00", "", "false"])).toBe(false);
    expect(writer.addRow(["1", "10:00:00+01:00", "2020-01-01T00:00:00Z", "yes"])).toBe(false);
    expect(writer.addRow(["1" + "0".repeat(40), "", "", ""])).toBe(false);
    expect(writer.finish()).toEqual({ ok: false, kinds: ["string", "string", "string", "string"] });
  });

  it("read cells castCell refuses as text in a column widened to string", () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "integer" }], missingValues: [""] };
    const { metadata } = encodePart(schema, [["12"], ["oops"]]);
    expect(metadata.kinds).toEqual(["string"]);
  });
});

describe("text to UTF-8", () => {
  it("writes the bytes TextEncoder writes, lone surrogates included, short and long", async () => {
    const { ByteBuffer } = await import("../../src/columnar/parquet/byte-buffer.ts");
    const { random } = await import("./helpers/random-table.ts");
    const rnd = random(99);
    const samples = ["", "abc", "Zürich", "東京", "😀", "a\uD800b", "\uDC00x", "x\uD83D", "𝔘𝔫𝔦", "\uE000\uFFFF", "😀".repeat(48), "é".repeat(200)];
    for (let k = 0; k < 500; k++) samples.push(String.fromCharCode(...Array.from({ length: Math.floor(rnd() * 120) }, () => Math.floor(rnd() * 65536))));
    for (const text of samples) {
      const out = new ByteBuffer(4);
      out.lengthPrefixedUtf8(text);
      const want = new TextEncoder().encode(text);
      expect(out.view.getInt32(0, true)).toBe(want.length);
      expect(Buffer.from(out.filled().subarray(4)).equals(Buffer.from(want))).toBe(true);
    }
  });
});
