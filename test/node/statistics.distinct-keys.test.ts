// Distinct values past the exact table are counted exactly by their keys up to
// EXACT_DISTINCT_LIMIT (docs/statistics.md, "Exact and approximate"): every count here is held to
// a JavaScript Set of the same keys, through repeats, unions, copies and the stored form.
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/columnar/statistics/bytes.ts";
import { DistinctKeys } from "../../src/columnar/statistics/distinct-keys.ts";
import { KEY, keyOfNumber } from "../../src/columnar/statistics/hash.ts";
import { KeySketch } from "../../src/columnar/statistics/key-sketch.ts";
import { statisticsDocument } from "../../src/columnar/statistics/document.ts";
import { EXACT_DISTINCT_LIMIT, EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { createSummaries, distinctPast, mergeSummaries, observeRow, skipDistinctKeys } from "../../src/columnar/statistics/table-summary.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { mulberry32, randomInt } from "../helpers/random.ts";

/** `count` keys drawn from `pool` distinct ones, words spread over all 32 bits, (0, 0) among them. */
function draw(seed: number, count: number, pool: number): [number, number][] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, () => {
    const i = randomInt(random, 0, pool - 1);
    return i === 0 ? [0, 0] : [Math.imul(i, 0x9e3779b1) >>> 0, (i * 2654435761 + (i >>> 3)) >>> 0];
  });
}

const text = ([high, low]: [number, number]) => `${high},${low}`;

function keysOf(pairs: [number, number][]): DistinctKeys {
  const keys = new DistinctKeys();
  for (const [high, low] of pairs) keys.add(high, low);
  return keys;
}

function roundTrip(keys: DistinctKeys): DistinctKeys {
  const out = new ByteWriter();
  keys.encode(out);
  return DistinctKeys.decode(new ByteReader(out.finish()));
}

describe("distinct keys", () => {
  it("count every key once, through repeats and pieces of any size, up to the limit and not past it", () => {
    const pairs = draw(1, 250_000, 90_000);
    const truth = new Set(pairs.map(text)).size;
    const keys = keysOf(pairs);
    expect(keys.exact).toBe(true);
    expect(keys.size).toBe(truth);
    expect(roundTrip(keys).size).toBe(truth);
    // The same keys told as KEY, the encoder's way.
    const viaKey = new DistinctKeys();
    for (const [high, low] of pairs) {
      KEY[0] = high;
      KEY[1] = low;
      viaKey.addKey();
    }
    expect(viaKey.size).toBe(truth);
    const past = keysOf(draw(2, 300_000, 1_000_000));
    expect(past.exact).toBe(false);
    const atLimit = keysOf(Array.from({ length: EXACT_DISTINCT_LIMIT }, (_, i) => [i >>> 7, i] as [number, number]));
    expect([atLimit.exact, atLimit.size]).toEqual([true, EXACT_DISTINCT_LIMIT]);
    atLimit.add(0, 5);
    expect(atLimit.size).toBe(EXACT_DISTINCT_LIMIT);
    atLimit.add(0xffffffff, 0xffffffff);
    expect(atLimit.exact).toBe(false);
  });

  it("union, both ways round, leaving the other side and a copy as they were", () => {
    const a = draw(3, 40_000, 50_000);
    const b = draw(4, 40_000, 50_000).map(([high, low]) => [high ^ 1, low] as [number, number]);
    const truth = new Set([...a, ...b].map(text)).size;
    for (const [left, right] of [[a, b], [b, a]]) {
      const mine = keysOf(left!);
      const theirs = keysOf(right!);
      const before = theirs.size;
      const copy = mine.copy();
      mine.union(theirs);
      expect(mine.size).toBe(truth);
      expect(theirs.size).toBe(before);
      expect(copy.size).toBe(new Set(left!.map(text)).size);
    }
    const full = keysOf(draw(5, 400_000, 2_000_000));
    const some = keysOf(a);
    some.union(full);
    expect(some.exact).toBe(false);
  });

  it("count doubles by their bits, negatives and repeats among them", () => {
    const random = mulberry32(6);
    const values = Float64Array.from({ length: 60_000 }, () => randomInt(random, -20_000, 20_000) * 0.5);
    for (let i = 0; i < values.length; i++) if (Object.is(values[i], -0)) values[i] = 0;
    const keys = new DistinctKeys();
    for (let at = 0; at < values.length; at += 8192) {
      const batch = values.slice(at, at + 8192).sort();
      keys.addDoubles(batch, batch.length);
    }
    expect(keys.size).toBe(new Set(values).size);
  });

  it("refuse stored keys out of order or twice, or more keys than the limit", () => {
    for (const words of [[5, 1, 4, 9], [4, 9, 5, 1, 5, 1]]) {
      const out = new ByteWriter();
      out.varuint(words.length / 2);
      for (const word of words) out.u32(word);
      expect(() => DistinctKeys.decode(new ByteReader(out.finish()))).toThrow(RangeError);
    }
    const out = new ByteWriter();
    out.varuint(2);
    for (const word of [4, 9, 5, 1]) out.u32(word);
    expect(DistinctKeys.decode(new ByteReader(out.finish())).size).toBe(2);
    const long = new ByteWriter();
    long.varuint(EXACT_DISTINCT_LIMIT + 1);
    expect(() => DistinctKeys.decode(new ByteReader(long.finish()))).toThrow(RangeError);
  });

  it("keep a number column's distinct count exact past the values' limit, alone, merged and stored", () => {
    const random = mulberry32(7);
    const rows = Float64Array.from({ length: 120_000 }, () => randomInt(random, 0, 59_999) * 1.25);
    const truth = new Set(rows).size;
    expect(truth).toBeGreaterThan(EXACT_VALUES_LIMIT);
    /** Rows [from, to) in the feed's batches, with a few values told one at a time as a dictionary's. */
    const part = (from: number, to: number) => {
      const sketch = new KeySketch(true);
      for (let at = from; at < to; at += 8192) {
        const batch = rows.slice(at, Math.min(to, at + 8192));
        sketch.addBatch(batch, batch.length);
        keyOfNumber(rows[at]!);
        sketch.add(KEY[0]!, KEY[1]!, 2);
      }
      return sketch;
    };
    const stored = (sketch: KeySketch) => {
      const out = new ByteWriter();
      sketch.encode(out);
      return KeySketch.decode(new ByteReader(out.finish()), true);
    };
    const whole = stored(part(0, rows.length));
    expect([whole.approximate, whole.distinctApproximate, whole.distinct()]).toEqual([true, false, truth]);
    for (const cut of [5_000, 30_000, 90_000]) {
      for (const [left, right] of [[part(0, cut), part(cut, rows.length)], [part(cut, rows.length), part(0, cut)]]) {
        const merged = stored(left!);
        merged.merge(stored(right!));
        expect([merged.distinctApproximate, merged.distinct()], `cut at ${cut}`).toEqual([false, truth]);
      }
    }
  });

  it("a part after one past the limit keeps no keys, and the version reads the same", () => {
    const schema: TableSchema = { fields: [{ name: "n", type: "number" }, { name: "s", type: "string" }], missingValues: [""] };
    const part = (from: number, to: number, width: number, past: readonly boolean[] = []) => {
      const summary = createSummaries(schema);
      skipDistinctKeys(summary, past);
      for (let row = from; row < to; row++) observeRow(summary, [(row % width) * 0.5, `t-${row % width}`]);
      return summary;
    };
    // The first part past the limit: the second needs no keys, and the merge is the same estimate.
    const wide = part(0, 110_000, 110_000);
    expect(distinctPast(wide)).toEqual([true, true]);
    const withKeys = statisticsDocument(schema, mergeSummaries(part(0, 110_000, 110_000), part(110_000, 140_000, 200_000)));
    const without = statisticsDocument(schema, mergeSummaries(wide, part(110_000, 140_000, 200_000, distinctPast(wide))));
    expect(without).toEqual(withKeys);
    expect(without.columns.map((column) => column.distinct_approximate)).toEqual([true, true]);
    // Below it, the next part keeps its keys and the merged count is exact.
    const narrow = part(0, 60_000, 50_000);
    expect(distinctPast(narrow)).toEqual([false, false]);
    const merged = statisticsDocument(schema, mergeSummaries(narrow, part(60_000, 90_000, 90_000, distinctPast(narrow))));
    expect(merged.columns.map((column) => [column.distinct, column.distinct_approximate])).toEqual([
      [80_000, undefined],
      [80_000, undefined],
    ]);
  });
});
