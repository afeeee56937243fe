// The tiered merge policy (docs/storage-protocol.md) on simulated append histories: each byte is copied about
// log(n) times, lists stay short, big segments are left alone, the size cap holds.
import { describe, expect, it } from "vitest";
import { DEFAULT_MERGE_POLICY, planMerge } from "../src/storage/compaction-plan.ts";
import { mulberry32 } from "./helpers/random.ts";
import type { MergePolicy } from "../src/config.ts";

interface History {
  amplification: number;
  maxLength: number;
  finalLength: number;
  copiesOfFirst: number;
}

/** Appends `sizes` one by one to a list that starts as `[base]`, merging as planned after each. */
function simulate(base: number, sizes: number[], policy: MergePolicy = DEFAULT_MERGE_POLICY): History {
  let list = [base];
  let appended = 0;
  let written = 0;
  let maxLength = 1;
  let copiesOfFirst = 0;
  for (const size of sizes) {
    list.push(size);
    appended += size;
    written += size;
    for (let run = planMerge(list, policy); run; run = planMerge(list, policy)) {
      expect(run.end).toBe(list.length);
      expect(run.end - run.start).toBeGreaterThanOrEqual(2);
      if (run.start === 0) copiesOfFirst++;
      const merged = list.slice(run.start, run.end).reduce((a, b) => a + b, 0);
      expect(merged).toBeLessThanOrEqual(policy.maxMergedBytes);
      written += merged;
      list = [...list.slice(0, run.start), merged];
    }
    maxLength = Math.max(maxLength, list.length);
  }
  return { amplification: written / appended, maxLength, finalLength: list.length, copiesOfFirst };
}

describe("planMerge", () => {
  it("leaves short and well-shaped lists alone", () => {
    expect(planMerge([])).toBeNull();
    expect(planMerge([1000])).toBeNull();
    expect(planMerge([30_000_000, 60, 61, 62])).toBeNull();
    expect(planMerge([30_000_000, 5000, 1200, 300, 70])).toBeNull();
  });

  it("merges a full tier at the tail, and only the tail", () => {
    expect(planMerge([30_000_000, 60, 61, 62, 63, 64])).toEqual({ start: 1, end: 6 });
    expect(planMerge([30_000_000, 60, 61, 62, 63])).toBeNull();
    expect(planMerge([30_000_000, 5000, 240, 250, 260, 200, 60])).toEqual({ start: 2, end: 7 });
  });

  it("never copies a big segment to absorb a few small ones after it", () => {
    expect(planMerge([30_000_000, 60, 60, 60])).toBeNull();
    expect(planMerge([4096, 60, 60, 60])).toBeNull();
  });

  it("1,000 one-row appends to a 30 MB segment: ≤ 8× written per appended byte, ≤ 16 segments, first never copied", () => {
    const random = mulberry32(11);
    const history = simulate(30_000_000, Array.from({ length: 1000 }, () => 50 + Math.floor(random() * 40)));
    expect(history.amplification).toBeLessThanOrEqual(8);
    expect(history.maxLength).toBeLessThanOrEqual(16);
    expect(history.copiesOfFirst).toBe(0);
  });

  it("10,000 appends of mixed sizes keep every list at ≤ 16 segments and copies logarithmic", () => {
    const random = mulberry32(12);
    const sizes = Array.from({ length: 10_000 }, () => (random() < 0.05 ? 1 + Math.floor(random() * 2_000_000) : 40 + Math.floor(random() * 80)));
    const history = simulate(30_000_000, sizes);
    expect(history.maxLength).toBeLessThanOrEqual(16);
    expect(history.amplification).toBeLessThanOrEqual(10);
  });

  it("equal large appends: copies grow with log(n), not n", () => {
    const small = simulate(1_000_000, Array.from({ length: 64 }, () => 1_000_000));
    const large = simulate(1_000_000, Array.from({ length: 1024 }, () => 1_000_000));
    expect(small.amplification).toBeLessThanOrEqual(5);
    expect(large.amplification).toBeLessThanOrEqual(7);
    expect(large.maxLength).toBeLessThanOrEqual(16);
  });

  it("never merges past the size cap, and never copies a segment at the cap", () => {
    const policy = { fanIn: 4, maxSegments: 16, maxMergedBytes: 10_000 };
    expect(planMerge([10_000, 3000, 3000, 3000, 3000], policy)).toBeNull();
    expect(planMerge([12_000, 100, 100, 100, 100], policy)).toEqual({ start: 1, end: 5 });
    const history = simulate(10_000, Array.from({ length: 2000 }, () => 300), policy);
    expect(history.copiesOfFirst).toBe(0);
  });
});
