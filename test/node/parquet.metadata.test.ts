// Part metadata and kinds (src/columnar/parquet): the stored form round-trips and refuses other
// versions, kinds widen as docs/columnar.md says, and a part that meets a wider value reports it.
import { describe, expect, it } from "vitest";
import { decodeGroupPages, decodePartHead, decodePartMetadata, encodePart, encodePartMetadata, joinChunks, PART_METADATA_VERSION, PartWriter, ROW_GROUP_BYTES, startKinds, storedPagesBytes, unifyKind } from "../../src/columnar/parquet/index.ts";
import { legacyPartMetadata } from "../helpers/legacy-part-metadata.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { randomTable } from "./helpers/random-table.ts";

describe("part metadata", () => {
  it("round-trips through its stored form: a head without pages, and each row group's pages apart", () => {
    const { schema, rows } = randomTable(3, 10, 200);
    const { metadata } = encodePart(schema, rows, startKinds(schema), { rowGroupRows: 60 });
    const stored = encodePartMetadata(metadata);
    expect(JSON.parse(stored.head).v).toBe(PART_METADATA_VERSION);
    expect(decodePartMetadata(stored.head, stored.pages)).toEqual(metadata);
    expect(metadata.rowGroups.map((group) => group.rows)).toEqual([60, 60, 60, 20]);
    // The head locates each row group's pages; one row group's read alone is its chunks' pages.
    const head = decodePartHead(stored.head);
    expect(storedPagesBytes(head)).toBe(stored.pages.length);
    head.rowGroups.forEach((group, g) => {
      if (Array.isArray(group.pages)) throw new Error("pages in a version-3 head");
      const pages = decodeGroupPages(stored.pages.slice(group.pages.offset, group.pages.offset + group.pages.length), schema.fields.length);
      expect(joinChunks(group.columns, pages)).toEqual(metadata.rowGroups[g]!.columns);
      expect(group.columns.every((chunk) => !("pageIndex" in chunk) && !("pageOffsets" in chunk))).toBe(true);
    });
  });

  it("refuses another version and malformed documents", () => {
    const { schema, rows } = randomTable(4, 3, 5);
    const stored = encodePartMetadata(encodePart(schema, rows).metadata);
    const head = JSON.parse(stored.head) as { groups: [number, unknown[], unknown][] };
    expect(() => decodePartMetadata(JSON.stringify({ ...head, v: PART_METADATA_VERSION + 1 }), stored.pages)).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...head, v: 2 }), stored.pages)).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...head, kinds: ["int128", "string", "string"] }), stored.pages)).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...head, groups: [[5, []]] }), stored.pages)).toThrow();
    expect(() => decodePartMetadata(JSON.stringify({ ...head, groups: head.groups.map(([n, chunks]) => [n, chunks]) }), stored.pages)).toThrow();
    expect(() => decodePartMetadata(stored.head, stored.pages.slice(1))).toThrow();
    expect(() => decodeGroupPages(stored.pages, 2)).toThrow();
  });

  it("reads a part written with its pages in the head (version 2), as before", () => {
    const { schema, rows } = randomTable(6, 5, 300);
    const { metadata } = encodePart(schema, rows, startKinds(schema), { rowGroupRows: 100, pageRows: 30 });
    const v2 = legacyPartMetadata(metadata, 2);
    expect(JSON.parse(v2).v).toBe(2);
    expect(decodePartMetadata(v2)).toEqual(metadata);
    const head = decodePartHead(v2);
    expect(storedPagesBytes(head)).toBe(0);
    expect(head.rowGroups.map((group) => (Array.isArray(group.pages) ? joinChunks(group.columns, group.pages) : null))).toEqual(metadata.rowGroups.map((group) => group.columns));
  });

  it("reads a part written before pages had bounds (version 1): its chunks have no page index", () => {
    const { schema, rows } = randomTable(5, 4, 50);
    const { metadata } = encodePart(schema, rows);
    const read = decodePartMetadata(legacyPartMetadata(metadata, 1));
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
