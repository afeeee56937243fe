// Stored summary formats (docs/statistics.md, "Stored summaries"): format 2 keys a string
// column's texts by a hash of their UTF-8 bytes, taken over the bytes the Parquet encoder writes;
// summaries stored in format 1 keyed them by their UTF-16 code units. Format 1 still reads, and
// merges with format 2 into the document one pass over the same rows gives: the side whose texts
// all survive is keyed again, and only when neither does is `distinct` marked approximate.
import { describe, expect, it } from "vitest";
import { statisticsDocument } from "../../src/columnar/statistics/document.ts";
import { hashString, hashText, hashUtf8, KEY } from "../../src/columnar/statistics/hash.ts";
import { StringColumn } from "../../src/columnar/statistics/string-column.ts";
import { createSummaries, decodeSummary, encodeSummary, mergeSummaries, observeRow, summaryFormat, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import type { TextKeys } from "../../src/columnar/statistics/string-column.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { mulberry32, randomInt } from "../helpers/random.ts";

const SCHEMA: TableSchema = { fields: [{ name: "city", type: "string" }, { name: "n", type: "integer" }], missingValues: [""] };

/**
 * Written by encodeSummary before format 2 (the commit before it), for the rows below:
 * Zürich 1, Genève 2, 東京 3, Zürich 4, (missing) 5, 😀 naïve 6.
 */
const FORMAT_1 =
  "5053535401060206010502071b000004a33c2e51accf9da0010747656ec3a876655d3b9ad63ac0afa70106e69db1e4baac1624148c47ba0ba802075ac3bc726963680cdf67b065b5dcfc010bf09f9880206e61c3af76650000000000000000000000f03f000000000000184000000006000000000000354000000000000000000000000000000c40000000000080314000060000084000000000010000f03f0000000001000014400000000001000010400000000001000018400000000001000000400000000001";
const FORMAT_1_ROWS: [string | null, number][] = [["Zürich", 1], ["Genève", 2], ["東京", 3], ["Zürich", 4], [null, 5], ["😀 naïve", 6]];

function summarise(rows: readonly (readonly [string | null, number])[], keys: TextKeys = "utf8"): TableSummary {
  const summary = createSummaries(SCHEMA, keys);
  for (const row of rows) observeRow(summary, row);
  summary.rows = rows.length;
  return summary;
}

/** Every frequent-value counter of the string column, by count then text. */
const countersOf = (summary: TableSummary) => (summary.columns[0] as StringColumn).frequent.top(Number.MAX_SAFE_INTEGER);
const roundTrip = (summary: TableSummary) => decodeSummary(encodeSummary(summary));
const documentOf = (summary: TableSummary) => statisticsDocument(SCHEMA, summary);

/** `count` rows of texts drawn from `distinct` values (with repeats, so top counts matter), some non-ASCII. */
function texts(seed: number, count: number, distinct: number): [string, number][] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => {
    const value = random() < 0.2 ? randomInt(random, 0, 9) : randomInt(random, 0, distinct - 1);
    return [`${value % 3 === 0 ? "ü" : ""}value ${value}${value % 7 === 0 ? " 東京" : ""}`, i];
  });
}

describe("text keys", () => {
  it("hashUtf8 gives format 2's keys, which stored summaries hold", () => {
    // Keys as format 2 was first stored with (high, low, code points), each text at an offset of 3.
    const pinned: [string, number, number, number][] = [
      ["", 0x488bdcb8, 0x1aee8d83, 0],
      ["a", 0xf8bd8565, 0x078e5422, 1],
      ["abc", 0x2fd213e4, 0x84bab253, 3],
      ["abcd", 0x112dcc37, 0xf8189d9d, 4],
      ["abcde", 0x85f10468, 0x272647da, 5],
      ["Zürich", 0x4c8ad6ec, 0x60f0441a, 6],
      ["東京", 0x20261cd5, 0xf83acd63, 2],
      ["😀 naïve café", 0x8da3a5c3, 0x141c833f, 12],
      ["user421329@example.net", 0x4e108da4, 0xea48964b, 22],
      ["fragile call door reorder bulk", 0xbc814ec6, 0x81336465, 30],
    ];
    for (const [text, high, low, points] of pinned) {
      const bytes = new TextEncoder().encode(text);
      const padded = new Uint8Array(bytes.length + 3);
      padded.set(bytes, 3);
      expect(hashUtf8(padded, 3, bytes.length), text).toBe(points);
      expect([KEY[0], KEY[1]], text).toEqual([high, low]);
      // A view into a larger buffer keys the same bytes the same.
      const inner = new Uint8Array(new Uint8Array(bytes.length + 8).buffer, 5, bytes.length);
      inner.set(bytes);
      hashUtf8(inner, 0, bytes.length);
      expect([KEY[0], KEY[1]], text).toEqual([high, low]);
    }
  });

  it("hashUtf8 counts code points as hashString does and tells texts apart", () => {
    for (const text of ["", "a", "ab", "abc", "abcd", "abcde", "Zürich", "東京", "😀 naïve café", "x".repeat(301), "ü".repeat(7)]) {
      const bytes = new TextEncoder().encode(text);
      const points = hashUtf8(bytes, 0, bytes.length);
      const key = [KEY[0], KEY[1]];
      expect(points, text).toBe([...text].length);
      expect(hashString(text), text).toBe(points);
      // The same bytes at another offset of a larger buffer key the same.
      const padded = new Uint8Array(bytes.length + 9);
      padded.set(bytes, 5);
      hashUtf8(padded, 5, bytes.length);
      expect([KEY[0], KEY[1]], text).toEqual(key);
      hashText(text);
      expect([KEY[0], KEY[1]], text).toEqual(key);
    }
    const keys = new Set<string>();
    for (let i = 0; i < 50_000; i++) {
      hashText(`user${i}@example.com`);
      keys.add(`${KEY[0]},${KEY[1]}`);
    }
    expect(keys.size).toBe(50_000);
  });
});

describe("stored summary formats", () => {
  it("reads a summary stored in format 1 as it was written", () => {
    const bytes = Uint8Array.from(Buffer.from(FORMAT_1, "hex"));
    expect(summaryFormat(bytes)).toBe(1);
    const old = decodeSummary(bytes);
    expect((old.columns[0] as StringColumn).keys).toBe("utf16");
    expect(documentOf(old)).toEqual(documentOf(summarise(FORMAT_1_ROWS)));
    // Made to merge with format 1 (createSummaries' "utf16"), a summary is stored as format 1: the
    // same bytes but for the order of the frequent-value counters (now the order they were counted).
    const stored = encodeSummary(summarise(FORMAT_1_ROWS, "utf16"));
    expect(summaryFormat(stored)).toBe(1);
    expect(stored.length).toBe(bytes.length);
    expect([...stored].sort()).toEqual([...bytes].sort());
    expect(countersOf(decodeSummary(stored))).toEqual(countersOf(old));
    expect(documentOf(decodeSummary(stored))).toEqual(documentOf(old));
    expect(summaryFormat(encodeSummary(summarise(FORMAT_1_ROWS)))).toBe(2);
  });

  it("merges format 1 with format 2 into the one-pass document, whichever side has more texts", () => {
    const few = texts(1, 300, 50);
    const many = texts(2, 30_000, 9_000);
    const onePass = documentOf(summarise([...few, ...many]));
    const oneColumn = onePass.columns[0] as unknown as Record<string, unknown>;
    expect(oneColumn.top_approximate).toBe(true);
    expect(oneColumn.distinct_approximate).toBeUndefined();
    // An old parent with few texts, a new append with many; then the other way round.
    for (const [older, newer, order] of [[few, many, "old first"], [many, few, "new first"]] as const) {
      const old = roundTrip(summarise(older, "utf16"));
      const fresh = roundTrip(summarise(newer));
      const merged = order === "old first" ? mergeSummaries(old, fresh) : mergeSummaries(fresh, old);
      const column = statisticsDocument(SCHEMA, merged).columns[0] as unknown as Record<string, unknown>;
      expect(column.distinct, order).toBe(oneColumn.distinct);
      expect(column.distinct_approximate, order).toBeUndefined();
      expect(column.min_length, order).toBe(oneColumn.min_length);
      expect(column.max_length, order).toBe(oneColumn.max_length);
      expect(column.mean_length, order).toBe(oneColumn.mean_length);
      expect(column.top, order).toEqual(oneColumn.top);
    }
  });

  it("marks distinct approximate when neither side's texts can be keyed again, and keeps each text once in top", () => {
    const a = texts(3, 30_000, 9_000);
    const b = texts(4, 30_000, 9_000);
    const truth = new Set([...a, ...b].map(([text]) => text)).size;
    const merged = mergeSummaries(roundTrip(summarise(a, "utf16")), roundTrip(summarise(b)));
    const column = statisticsDocument(SCHEMA, merged).columns[0] as unknown as Record<string, unknown> & { distinct: number; top: { value: string; count: number }[] };
    expect(column.distinct_approximate).toBe(true);
    // Each side's set is exact; a text on both sides may count twice, never less than once.
    expect(column.distinct).toBeGreaterThanOrEqual(truth);
    expect(column.distinct).toBeLessThanOrEqual(new Set(a.map(([t]) => t)).size + new Set(b.map(([t]) => t)).size);
    const values = column.top.map((entry) => entry.value);
    expect(new Set(values).size).toBe(values.length);
    // The frequent counters were keyed again by text: the top values are the one-pass ones.
    expect(values).toEqual((documentOf(summarise([...a, ...b])).columns[0] as unknown as { top: { value: string }[] }).top.map((entry) => entry.value));
  });

  it("refuses to store one summary whose string columns are keyed both ways", () => {
    const schema: TableSchema = { fields: [{ name: "a", type: "string" }, { name: "b", type: "string" }], missingValues: [""] };
    const summary = createSummaries(schema);
    (summary.columns[1] as StringColumn).keys = "utf16";
    expect(() => encodeSummary(summary)).toThrow(/keyed both ways/);
  });
});
