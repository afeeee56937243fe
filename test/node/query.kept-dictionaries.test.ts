// The isolate's store of the twin's decoded dictionary pages (src/query/kept-dictionaries.ts):
// found by part, chunk offset and field type only; bounded in bytes, each dictionary counted as
// all it may come to hold, the least recently used dropped first.
import { describe, expect, it } from "vitest";
import { encodePart } from "../../src/columnar/parquet/index.ts";
import { readDictionary, readPages, type Dictionary } from "../../src/columnar/parquet/read-chunk.ts";
import { KeptDictionaries } from "../../src/query/kept-dictionaries.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";

const SCHEMA: TableSchema = { fields: [{ name: "city", type: "string" }], missingValues: [""] };

/** A one-column part of `names` repeated to `rows` rows: its chunk's dictionary page, decoded, and its first data page. */
function cityChunk(names: readonly string[], rows = 100) {
  const part = encodePart(SCHEMA, Array.from({ length: rows }, (_, i) => [names[i % names.length]!]));
  const bytes = new Uint8Array(part.bytes.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of part.bytes) {
    bytes.set(piece, at);
    at += piece.length;
  }
  const chunk = part.metadata.rowGroups[0]!.columns[0]!;
  expect(chunk.dictionary).toBe(true);
  const dictionaryPage = bytes.subarray(chunk.offset, chunk.offset + chunk.pageOffsets[0]!);
  const page = { bytes: bytes.subarray(chunk.offset + chunk.pageOffsets[0]!, chunk.offset + chunk.pageOffsets[0]! + chunk.pageSizes[0]!), firstRow: 0 };
  const to = chunk.pageFirstRows[1] ?? rows;
  const read = (dictionary: Uint8Array | Dictionary) => readPages({ dictionary, pages: [page] }, 0, to, "string", "string");
  return { dictionary: readDictionary(dictionaryPage, "string", "string"), dictionaryPage, read };
}

describe("KeptDictionaries", () => {
  it("finds a dictionary by its part's key, its chunk's offset and the type it is read as, and nothing else", () => {
    const kept = new KeptDictionaries(1 << 20);
    const { dictionary } = cityChunk(["Oslo", "Lima"]);
    kept.keep("parts/a", 100, "string", dictionary);
    expect(kept.get("parts/a", 100, "string")).toBe(dictionary);
    expect(kept.get("parts/a", 101, "string")).toBeUndefined();
    expect(kept.get("parts/b", 100, "string")).toBeUndefined();
    expect(kept.get("parts/a", 100, "integer")).toBeUndefined();
    // A key that is a prefix of another does not reach its dictionaries.
    kept.keep("parts/a1", 0, "string", dictionary);
    expect(kept.get("parts/a", 10, "string")).toBeUndefined();
  });

  it("holds at most its bound, each dictionary counted as all it may hold decoded, the least recently used dropped first", () => {
    const dictionaries = [0, 1, 2, 3].map((n) => cityChunk(Array.from({ length: 20 }, (_, i) => `city ${n}-${i}`)).dictionary);
    const size = dictionaries[0]!.heldBytes;
    // Its page uncompressed and a slot, a start and a decoded text per entry: more than the page.
    expect(size).toBeGreaterThan(20 * 32);
    expect(dictionaries.every((dictionary) => dictionary.heldBytes === size)).toBe(true);
    const kept = new KeptDictionaries(3 * size);
    for (const [i, dictionary] of dictionaries.slice(0, 3).entries()) kept.keep("p", i, "string", dictionary);
    expect(kept.bytes).toBe(3 * size);
    // Asked for, the first is now the most recently used: the second goes first.
    expect(kept.get("p", 0, "string")).toBe(dictionaries[0]);
    kept.keep("p", 3, "string", dictionaries[3]!);
    expect(kept.bytes).toBe(3 * size);
    expect(kept.get("p", 1, "string")).toBeUndefined();
    expect(kept.get("p", 0, "string")).toBe(dictionaries[0]);
    expect(kept.get("p", 2, "string")).toBe(dictionaries[2]);
    expect(kept.get("p", 3, "string")).toBe(dictionaries[3]);
    // One past the bound is not kept, and drops nothing.
    const small = new KeptDictionaries(size - 1);
    small.keep("p", 0, "string", dictionaries[0]!);
    expect(small.get("p", 0, "string")).toBeUndefined();
    expect(small.bytes).toBe(0);
  });

  it("a kept dictionary reads its chunk's pages as the page it came from does, query after query", () => {
    const names = ["Zürich", "東京", "", "Oslo", "São Paulo"];
    const { dictionary, dictionaryPage, read } = cityChunk(names);
    const fresh = read(dictionaryPage);
    expect(fresh.cells.slice(0, 5)).toEqual(["Zürich", "東京", null, "Oslo", "São Paulo"]);
    for (let k = 0; k < 3; k++) expect(read(dictionary)).toEqual(fresh);
  });
});
