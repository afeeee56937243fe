// HyperLogLog's hot paths, addKey (a string column's cell, its key in KEY) and addDoubles (a batch
// of numbers), mix the key in place instead of calling mixHigh (src/columnar/statistics/hyperloglog.ts
// says why): they must set exactly the registers add(high, low) sets, or stored sketches would
// stop merging with the ones made before.
import { describe, expect, it } from "vitest";
import { HyperLogLog } from "../../src/columnar/statistics/hyperloglog.ts";
import { KEY, keyOfNumber } from "../../src/columnar/statistics/hash.ts";

/** xorshift32: the same keys on every run. */
function lanes(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

/** Registers that differ (a count, which a failing run prints quickly, where 65,536 bytes compared one by one do not). */
function differing(a: HyperLogLog, b: HyperLogLog): number {
  let n = 0;
  for (let i = 0; i < a.registers.length; i++) if (a.registers[i] !== b.registers[i]) n++;
  return n;
}

describe("HyperLogLog's hot paths", () => {
  it("addKey sets the registers add sets, for 300,000 keys and the extreme ones", () => {
    const next = lanes(0x2545f491);
    const keys: [number, number][] = [[0, 0], [0xffffffff, 0xffffffff], [0x80000000, 0], [0, 0x40000000]];
    for (let i = 0; i < 300_000; i++) keys.push([next(), next()]);
    const byAdd = new HyperLogLog();
    const byKey = new HyperLogLog();
    for (const [high, low] of keys) {
      byAdd.add(high, low);
      KEY[0] = high;
      KEY[1] = low;
      byKey.addKey();
    }
    expect(differing(byKey, byAdd)).toBe(0);
    expect(byKey.estimate()).toBe(byAdd.estimate());
  });

  it("addDoubles sets the registers add sets for each distinct value's bits", () => {
    const next = lanes(0x9e3779b9);
    const values: number[] = [0, -1.5, 1e-310, -1e300, Number.MAX_VALUE, 2 ** 53 - 1];
    for (let i = 0; i < 200_000; i++) {
      const r = next();
      // Prices, timestamps and small integers, with repeats.
      values.push(r % 3 === 0 ? (r % 500_000) / 100 : r % 3 === 1 ? 1.6e15 + r : r % 97);
    }
    values.sort((a, b) => a - b);
    const byAdd = new HyperLogLog();
    for (const value of new Set(values)) {
      keyOfNumber(value);
      byAdd.add(KEY[0]!, KEY[1]!);
    }
    const byDoubles = new HyperLogLog();
    // In batches, as the summaries feed it, one of them a view into a larger buffer.
    const all = Float64Array.from(values);
    for (let at = 0; at < all.length; at += 8192) {
      const batch = all.subarray(at, Math.min(all.length, at + 8192));
      byDoubles.addDoubles(batch, batch.length);
    }
    expect(differing(byDoubles, byAdd)).toBe(0);
  });
});
