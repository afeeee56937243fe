// docs/statistics.md inside workerd: a small summary is built from cast rows, encoded, decoded,
// merged with an append's summary and rendered, with the figures worked out by hand, so the pure
// module runs where the worker will run it (typed arrays, TextEncoder, BigInt).
import { describe, expect, it } from "vitest";
import { statisticsDocument } from "../src/columnar/statistics/document.ts";
import { createSummaries, decodeSummary, encodeSummary, mergeSummaries, observeRow } from "../src/columnar/statistics/table-summary.ts";
import { typedRow } from "../src/schema/cast.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";

const schema: TableSchema = {
  fields: [
    { name: "id", type: "integer" },
    { name: "price", type: "number" },
    { name: "ok", type: "boolean" },
    { name: "day", type: "date" },
    { name: "at", type: "datetime" },
    { name: "city", type: "string" },
  ],
  missingValues: ["", "NA"],
};
const missing = new Set(schema.missingValues);

function summarise(rows: string[][]) {
  const summary = createSummaries(schema);
  for (const row of rows) observeRow(summary, typedRow(schema, missing, row));
  return summary;
}

describe("column statistics in workerd", () => {
  it("builds, encodes, decodes, merges an append and renders the document", () => {
    const parent = summarise([
      ["1", "2.5", "true", "1969-07-20", "2024-01-01T10:00:00+01:00", "Zürich"],
      ["2", "NaN", "false", "2000-02-29", "2024-01-01T08:00:00Z", "Genève"],
      ["99999999999999999999", "NA", "true", "", "", "Zürich"],
    ]);
    const append = summarise([["4", "-1.5", "", "2024-12-31", "2024-01-02T00:00:00Z", "東京"]]);
    const merged = mergeSummaries(decodeSummary(encodeSummary(parent)), decodeSummary(encodeSummary(append)));
    const document = statisticsDocument(schema, decodeSummary(encodeSummary(merged)));
    expect(document.rows).toBe(4);
    const [id, price, ok, day, at, city] = document.columns as unknown as Record<string, unknown>[];
    expect(id).toMatchObject({ name: "id", type: "integer", nulls: 0, distinct: 4, min: 1, max: "99999999999999999999", median: 3 });
    expect(price).toMatchObject({ type: "number", nulls: 1, distinct: 3, nan: 1, min: -1.5, max: 2.5, mean: 0.5, std: 2, median: 0.5 });
    expect(ok).toMatchObject({ type: "boolean", nulls: 1, distinct: 2, true: 2, false: 1 });
    expect(day).toMatchObject({ type: "date", nulls: 1, distinct: 3, min: "1969-07-20", max: "2024-12-31" });
    expect(at).toMatchObject({ type: "datetime", nulls: 1, distinct: 3, min: "2024-01-01T08:00:00Z", max: "2024-01-02T00:00:00Z" });
    expect(city).toMatchObject({ type: "string", nulls: 0, distinct: 3, min_length: 2, max_length: 6, mean_length: 5, top: [
      { value: "Zürich", count: 2 },
      { value: "Genève", count: 1 },
      { value: "東京", count: 1 },
    ] });
    const bins = (day as { histogram: { from: string; to: string; count: number }[] }).histogram;
    expect(bins).toHaveLength(10);
    expect([bins[0]!.from, bins[9]!.to]).toEqual(["1969-07-20", "2024-12-31"]);
    expect(bins.map((bin) => bin.count)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    for (const column of document.columns) expect(column).not.toHaveProperty("distinct_approximate");
  });

  it("refuses bytes it did not write and a summary of other types", () => {
    expect(() => decodeSummary(new Uint8Array([1, 2, 3]))).toThrow(RangeError);
    const bytes = encodeSummary(createSummaries(schema));
    expect(() => decodeSummary(bytes.subarray(0, bytes.length - 1))).toThrow(RangeError);
    const other: TableSchema = { ...schema, fields: schema.fields.map((field) => ({ ...field, type: "string" as const })) };
    expect(() => statisticsDocument(other, decodeSummary(bytes))).toThrow(RangeError);
  });
});
