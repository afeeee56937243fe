// A string column's distinct set stored exact stays exact when read back, whatever its size:
// summaries written while the set's limit was higher hold sets past today's EXACT_VALUES_LIMIT,
// and a version's statistics must not change once written (docs/statistics.md "Exact and approximate").
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/columnar/statistics/bytes.ts";
import { DistinctTexts } from "../../src/columnar/statistics/distinct-texts.ts";
import { EXACT_DISTINCT_LIMIT, EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";

/** An exact set of `keys` keys as stored: mode 0, the count, each key's two words and the count 1. */
function storedExact(keys: number, first = 1): Uint8Array {
  const out = new ByteWriter();
  out.u8(0);
  out.varuint(keys);
  for (let i = 0; i < keys; i++) {
    out.u32(Math.imul(first + i, 0x9e3779b1) >>> 0);
    out.u32(first + i);
    out.varuint(1);
  }
  return out.finish();
}

describe("a distinct-text set stored exact", () => {
  const size = EXACT_VALUES_LIMIT * 3;

  it("reads exact past today's limit, and stores back to the same bytes", () => {
    const bytes = storedExact(size);
    const set = DistinctTexts.decode(new ByteReader(bytes));
    expect(set.approximate).toBe(false);
    expect(set.distinct()).toBe(size);
    const again = new ByteWriter();
    set.encode(again);
    const decodedAgain = DistinctTexts.decode(new ByteReader(again.finish()));
    expect(decodedAgain.distinct()).toBe(size);
    expect(decodedAgain.approximate).toBe(false);
  });

  it("stays exact merged with keys it holds, and is sketched within 2 % once a merge adds new ones", () => {
    const set = DistinctTexts.decode(new ByteReader(storedExact(size)));
    set.merge(DistinctTexts.decode(new ByteReader(storedExact(100, 1))));
    expect(set.approximate).toBe(false);
    expect(set.distinct()).toBe(size);
    // A new key moves it to the sketch, its count still exact by its sorted keys.
    set.merge(DistinctTexts.decode(new ByteReader(storedExact(1_000, size + 1))));
    expect(set.hll).not.toBeNull();
    expect(set.approximate).toBe(false);
    expect(set.distinct()).toBe(size + 1_000);
  });

  it("stored at the distinct limit, is an estimate within 2 % once a merge adds new keys", () => {
    const set = DistinctTexts.decode(new ByteReader(storedExact(EXACT_DISTINCT_LIMIT)));
    expect(set.distinct()).toBe(EXACT_DISTINCT_LIMIT);
    set.merge(DistinctTexts.decode(new ByteReader(storedExact(1_000, EXACT_DISTINCT_LIMIT + 1))));
    expect(set.approximate).toBe(true);
    expect(Math.abs(set.distinct() - (EXACT_DISTINCT_LIMIT + 1_000)) / (EXACT_DISTINCT_LIMIT + 1_000)).toBeLessThan(0.02);
  });
});
