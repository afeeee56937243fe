// The frequent-value counters' doorkeeper (src/columnar/statistics/string-column.ts, docs/statistics.md
// "The summaries"): once the counters have purged, a text seen for the first time is left out of
// them, which keeps every count a lower bound within the offset and spares a column of mostly
// distinct texts a counter and a purge per few thousand cells.
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/columnar/statistics/bytes.ts";
import { hashText, KEY } from "../../src/columnar/statistics/hash.ts";
import { EXACT_DISTINCT_LIMIT, FREQUENT_PURGE_AT } from "../../src/columnar/statistics/limits.ts";
import { StringColumn } from "../../src/columnar/statistics/string-column.ts";

function observe(column: StringColumn, text: string): void {
  const bytes = new TextEncoder().encode(text);
  const points = hashText(text);
  column.observeKeyed(bytes, 0, bytes.length, points, text.length);
}

/** Every counter (not only the top ten) is a lower bound at most the offset below the truth. */
function expectWithinOffset(column: StringColumn, truth: Map<string, number>): void {
  const offset = column.frequent.offset;
  for (const { value, count } of column.frequent.top(Number.MAX_SAFE_INTEGER)) {
    const real = truth.get(value)!;
    expect(count, value).toBeLessThanOrEqual(real);
    expect(real - count, value).toBeLessThanOrEqual(offset);
  }
}

function fedWithTruth(texts: string[]): { column: StringColumn; truth: Map<string, number> } {
  const column = new StringColumn();
  const truth = new Map<string, number>();
  for (const text of texts) {
    observe(column, text);
    truth.set(text, (truth.get(text) ?? 0) + 1);
  }
  return { column, truth };
}

const HOT = 10;

describe("the frequent counters' doorkeeper", () => {
  it("counts every text before the first purge, then leaves out first sightings alone", () => {
    // Enough distinct texts for one purge (every count 1: floor 1, nothing survives), then ten
    // texts a thousand times each among 10,000 texts seen once, all within the exact limit.
    const texts = Array.from({ length: FREQUENT_PURGE_AT + 1 }, (_, i) => `early ${i}`);
    for (let i = 0; i < 20_000; i++) texts.push(i % 2 === 0 ? `hot ${(i / 2) % HOT}` : `once ${i}`);
    expect(FREQUENT_PURGE_AT + 1 + HOT + 10_000).toBeLessThan(EXACT_DISTINCT_LIMIT);
    const { column, truth } = fedWithTruth(texts);
    for (let k = 0; k < HOT; k++) expect(truth.get(`hot ${k}`)).toBe(1_000);
    expect(column.distinctCount()).toEqual({ distinct: FREQUENT_PURGE_AT + 1 + HOT + 10_000, approximate: false });
    // One purge: the texts seen once never took a counter.
    expect(column.frequent.offset).toBe(1);
    expect(column.frequent.size).toBe(HOT);
    // Each hot text's first sighting is the one left out.
    for (const { value, count } of column.entry().top) expect([value, count]).toEqual([value, truth.get(value)! - 1]);
    expectWithinOffset(column, truth);
  });

  it("past the exact limit still knows every text seen, so none is left out twice", () => {
    // A purge, the hot texts once each (left out), enough texts to pass the exact limit, then the
    // hot texts 30 times more among a few new texts: each hot count is its truth less one.
    const texts = Array.from({ length: FREQUENT_PURGE_AT + 1 }, (_, i) => `early ${i}`);
    for (let k = 0; k < HOT; k++) texts.push(`hot ${k}`);
    for (let i = 0; i < EXACT_DISTINCT_LIMIT; i++) texts.push(`once ${i}`);
    for (let i = 0; i < 300; i++) texts.push(`hot ${i % HOT}`, ...(i % 10 === 0 ? [`late ${i}`] : []));
    const { column, truth } = fedWithTruth(texts);
    expect(column.distinctCount().approximate).toBe(true);
    const hot = column.entry().top.filter(({ value }) => value.startsWith("hot "));
    expect(hot).toHaveLength(HOT);
    for (const { value, count } of hot) expect([value, count]).toEqual([value, truth.get(value)! - 1]);
    expectWithinOffset(column, truth);
  });

  it("after a merge with a sketched summary, leaves out nothing its bits never saw", () => {
    const own = fedWithTruth(Array.from({ length: EXACT_DISTINCT_LIMIT + FREQUENT_PURGE_AT }, (_, i) => `own ${i}`)).column;
    const other = fedWithTruth([...Array.from({ length: EXACT_DISTINCT_LIMIT + FREQUENT_PURGE_AT }, (_, i) => `other ${i}`), "shared", "shared"]).column;
    const out = new ByteWriter();
    other.encode(out);
    const stored = StringColumn.decode(new ByteReader(out.finish()));
    own.merge(stored);
    const before = own.frequent.top(Number.MAX_SAFE_INTEGER).find((top) => top.value === "shared")!.count;
    // "shared" was seen by the other side only: told once more, it is counted.
    observe(own, "shared");
    expect(own.frequent.top(Number.MAX_SAFE_INTEGER).find((top) => top.value === "shared")!.count).toBe(before + 1);
  });
});
