// A stored summary's size does not grow with the rows (docs/statistics.md#stored-summaries): past
// the exact limits a column keeps HyperLogLog's 64 KiB, a KLL sketch of a few thousand doubles
// and at most 4,096 frequent values cut to 256 characters; below them, about 9 bytes per value.
import { describe, expect, it } from "vitest";
import { EXACT_DISTINCT_LIMIT, EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { createSummaries, encodeSummary, observeRow } from "../../src/columnar/statistics/table-summary.ts";
import type { Cell } from "../../src/schema/cast.ts";
import type { FieldType } from "../../src/schema/table-schema.ts";

const KiB = 1024;

function encodedSize(type: FieldType, rows: number, cell: (row: number) => Cell): number {
  const summary = createSummaries({ fields: [{ name: "x", type }], missingValues: [""] });
  for (let row = 0; row < rows; row++) observeRow(summary, [cell(row)]);
  return encodeSummary(summary).length;
}

describe("stored summary size", () => {
  it("a number column of 1M distinct values stays under 128 KiB, and 3M adds next to nothing", () => {
    const million = encodedSize("number", 1_000_000, (row) => row * 1.5);
    expect(million).toBeLessThan(128 * KiB);
    expect(encodedSize("number", 3_000_000, (row) => row * 1.5)).toBeLessThan(million + 4 * KiB);
  });

  it("a string column of 1M distinct values stays under 256 KiB", () => {
    expect(encodedSize("string", 1_000_000, (row) => `user-${row}@example.org`)).toBeLessThan(256 * KiB);
  });

  it("a datetime column of 1M distinct instants stays under 128 KiB", () => {
    expect(encodedSize("datetime", 1_000_000, (row) => new Date(row * 1000).toISOString())).toBeLessThan(128 * KiB);
  });

  it("exact columns at the exact limit stay under 160 KiB (numbers) and 320 KiB (texts, with their frequent values)", () => {
    expect(encodedSize("integer", EXACT_VALUES_LIMIT, (row) => row)).toBeLessThan(160 * KiB);
    expect(encodedSize("string", EXACT_VALUES_LIMIT, (row) => `user-${row}@example.org`)).toBeLessThan(320 * KiB);
  });

  it("columns at the distinct limit add 8 bytes a key to the sketches", () => {
    expect(encodedSize("integer", EXACT_DISTINCT_LIMIT, (row) => row * 3)).toBeLessThan(8 * EXACT_DISTINCT_LIMIT + 128 * KiB);
    expect(encodedSize("string", EXACT_DISTINCT_LIMIT, (row) => `user-${row}@example.org`)).toBeLessThan(8 * EXACT_DISTINCT_LIMIT + 256 * KiB);
    // One more, and the keys go: the sketches' size again.
    expect(encodedSize("string", EXACT_DISTINCT_LIMIT + 1, (row) => `user-${row}@example.org`)).toBeLessThan(256 * KiB);
  });

  it("long values are kept cut to 256 characters among the frequent ones", () => {
    const long = "é".repeat(5000);
    const size = encodedSize("string", 20_000, (row) => `${row}${long}`);
    // 4,096 counters of at most 257 characters (2 UTF-8 bytes each here) and their keys, plus the distinct set.
    expect(size).toBeLessThan(4096 * (257 * 2 + 16) + 64 * KiB);
  });
});
