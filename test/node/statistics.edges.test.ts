// The corners of the statistics document (docs/statistics.md#special-values): columns with no
// value, one value, only infinities, zoned times, short date ranges, long texts, and the exact
// limit of the frequent values — each worked out by hand.
import { describe, expect, it } from "vitest";
import { statisticsDocument } from "../../src/columnar/statistics/document.ts";
import { createSummaries, decodeSummary, encodeSummary, observeRow } from "../../src/columnar/statistics/table-summary.ts";
import type { Cell } from "../../src/schema/cast.ts";
import type { FieldType } from "../../src/schema/table-schema.ts";

type Entry = Record<string, unknown>;

function describeColumn(type: FieldType, cells: Cell[]): Entry {
  const schema = { fields: [{ name: "x", type }], missingValues: [""] };
  const summary = createSummaries(schema);
  for (const cell of cells) observeRow(summary, [cell]);
  // Through the byte form, as a stored summary is read.
  return statisticsDocument(schema, decodeSummary(encodeSummary(summary))).columns[0] as unknown as Entry;
}

const counts = (entry: Entry) => (entry.histogram as { count: number }[]).map((bin) => bin.count);

describe("statistics corners", () => {
  it.each(["integer", "number", "date", "datetime", "time"] as const)("a %s column with no value", (type) => {
    const entry = describeColumn(type, [null, null]);
    expect(entry).toMatchObject({ nulls: 2, distinct: 0, min: null, max: null, histogram: [] });
    if (type === "integer" || type === "number") expect(entry).toMatchObject({ mean: null, std: null, median: null });
  });

  it("a string and a boolean column with no value", () => {
    expect(describeColumn("string", [null])).toMatchObject({ nulls: 1, distinct: 0, min_length: null, max_length: null, mean_length: null, top: [] });
    expect(describeColumn("boolean", [null])).toMatchObject({ nulls: 1, distinct: 0, true: 0, false: 0 });
  });

  it("one value repeated: a single bin, std 0", () => {
    const entry = describeColumn("number", [7.25, 7.25, 7.25]);
    expect(entry).toMatchObject({ distinct: 1, min: 7.25, max: 7.25, mean: 7.25, std: 0, median: 7.25 });
    expect(entry.histogram).toEqual([{ from: 7.25, to: 7.25, count: 3 }]);
  });

  it("only infinities and NaN: text extremes, IEEE mean, no bins", () => {
    expect(describeColumn("number", ["INF", "INF", "NaN"])).toMatchObject({ distinct: 2, nan: 1, min: "INF", max: "INF", mean: "INF", std: "NaN", median: "INF", histogram: [] });
    expect(describeColumn("number", ["INF", "-INF", 1, 3])).toMatchObject({ min: "-INF", max: "INF", mean: "NaN", std: "NaN", median: 2 });
  });

  it("NaN and infinities given as numbers count as their text forms do", () => {
    expect(describeColumn("number", [NaN, Infinity, -Infinity, 1])).toEqual(describeColumn("number", ["NaN", "INF", "-INF", 1]));
  });

  it("infinities count in the end bins of the finite range", () => {
    const entry = describeColumn("number", ["-INF", 0, 10, "INF", "INF"]);
    expect((entry.histogram as { from: number }[])[0]!.from).toBe(0);
    expect(counts(entry)).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
  });

  it("a column spanning nearly the whole double range has ten finite, rising bins", () => {
    const max = Number.MAX_VALUE;
    const entry = describeColumn("number", [-max, -1, 0, 1, max]);
    const bins = entry.histogram as { from: number; to: number; count: number }[];
    expect(bins).toHaveLength(10);
    for (const [i, bin] of bins.entries()) {
      expect(Number.isFinite(bin.from) && Number.isFinite(bin.to)).toBe(true);
      expect(bin.to).toBeGreaterThan(bin.from);
      if (i > 0) expect(bin.from).toBe(bins[i - 1]!.to);
    }
    expect(bins.map((bin) => bin.count)).toEqual([1, 0, 0, 0, 1, 2, 0, 0, 0, 1]);
  });

  it("times with a zone are ordered and written in UTC", () => {
    const entry = describeColumn("time", ["23:30:00-01:00", "10:00:00+02:00", "12:00:00Z"]);
    expect(entry).toMatchObject({ distinct: 3, min: "00:30:00Z", max: "12:00:00Z" });
  });

  it("a datetime column without zones stays without; fractions to the microsecond", () => {
    const entry = describeColumn("datetime", ["1969-12-31T23:59:59.5", "1970-01-01 00:00:00.1234567"]);
    expect(entry).toMatchObject({ min: "1969-12-31T23:59:59.5", max: "1970-01-01T00:00:00.123456" });
  });

  it("a date range shorter than ten days has zero-width bins, and counts still add up", () => {
    const entry = describeColumn("date", ["1969-12-30", "1969-12-31", "1970-01-01", "1970-01-01"]);
    const bins = entry.histogram as { from: string; to: string; count: number }[];
    expect(bins).toHaveLength(10);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(4);
    expect(bins.filter((bin) => bin.from === bin.to).every((bin) => bin.count === 0)).toBe(true);
    expect([bins[0]!.from, bins[9]!.to]).toEqual(["1969-12-30", "1970-01-01"]);
  });

  it("big integers next to each other stay distinct, and are the exact extremes", () => {
    const entry = describeColumn("integer", ["9007199254740993", "9007199254740992", "9007199254740994", 5]);
    expect(entry).toMatchObject({ distinct: 4, min: 5, max: "9007199254740994" });
    expect(describeColumn("integer", ["-18446744073709551617", "-18446744073709551616"])).toMatchObject({ min: "-18446744073709551617", max: "-18446744073709551616" });
  });

  it("lengths count code points; a long value is listed cut to 256 characters", () => {
    const long = "😀".repeat(300);
    const entry = describeColumn("string", ["🇨🇭", long, long]);
    expect(entry).toMatchObject({ min_length: 2, max_length: 300 });
    const top = entry.top as { value: string; count: number }[];
    expect(top[0]).toEqual({ value: `${"😀".repeat(128)}…`, count: 2 });
  });

  it("frequent values stay exact up to 4,096 distinct values, and are marked past them", () => {
    const values = (distinct: number) => Array.from({ length: distinct + 50 }, (_, i) => (i < distinct ? `v${i}` : "v0"));
    expect(describeColumn("string", values(4096))).not.toHaveProperty("top_approximate");
    expect((describeColumn("string", values(4096)).top as { count: number }[])[0]!.count).toBe(51);
    expect(describeColumn("string", values(4097))).toMatchObject({ top_approximate: true, distinct: 4097 });
  });

  it("refuses cells its column's type would not have cast", () => {
    expect(() => describeColumn("integer", ["12a"])).toThrow(RangeError);
    expect(() => describeColumn("date", ["2024/01/01"])).toThrow(RangeError);
    expect(() => describeColumn("datetime", ["2024-01-01 10h30"])).toThrow(RangeError);
  });

  it("refuses a summary of another format version", () => {
    const bytes = encodeSummary(createSummaries({ fields: [], missingValues: [""] }));
    bytes[4] = 3;
    expect(() => decodeSummary(bytes)).toThrow(/format 3/);
  });
});
