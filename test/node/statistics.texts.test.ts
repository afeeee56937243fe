// A string column's distinct set (src/columnar/statistics/distinct-texts.ts, docs/statistics.md
// "The summaries"): keys alone, exact up to 100,000 of them and then HyperLogLog, stored in the
// same bytes as a numeric column's KeySketch without values, and merged exactly across that form.
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/columnar/statistics/bytes.ts";
import { DistinctTexts } from "../../src/columnar/statistics/distinct-texts.ts";
import { hashText, KEY } from "../../src/columnar/statistics/hash.ts";
import { KeySketch } from "../../src/columnar/statistics/key-sketch.ts";
import { EXACT_DISTINCT_LIMIT } from "../../src/columnar/statistics/limits.ts";

function keyed(text: string): [number, number] {
  hashText(text);
  return [KEY[0]!, KEY[1]!];
}

function setOf(texts: Iterable<string>): DistinctTexts {
  const set = new DistinctTexts();
  for (const text of texts) set.add(...keyed(text));
  return set;
}

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => `value ${from + i}`);
}

function bytesOf(write: (out: ByteWriter) => void): Uint8Array {
  const out = new ByteWriter();
  write(out);
  return out.finish();
}

describe("a string column's distinct set", () => {
  it("counts each key once, the key (0, 0) included, and the same keys again add nothing", () => {
    const set = setOf(range(0, 1000));
    set.add(0, 0);
    set.add(0, 0);
    for (const text of range(0, 1000)) set.add(...keyed(text));
    expect(set.size).toBe(1001);
    expect(set.distinct()).toBe(1001);
    expect(set.approximate).toBe(false);
  });

  it("stays exact at the limit and sketches past it, within 2 %", () => {
    const at = setOf(range(0, EXACT_DISTINCT_LIMIT));
    expect(at.approximate).toBe(false);
    expect(at.distinct()).toBe(EXACT_DISTINCT_LIMIT);
    at.add(...keyed("one more"));
    expect(at.approximate).toBe(true);
    expect(Math.abs(at.distinct() - (EXACT_DISTINCT_LIMIT + 1))).toBeLessThanOrEqual(0.02 * EXACT_DISTINCT_LIMIT);
  });

  it("merges exact sets either way round, leaving the other side as it was", () => {
    const small = setOf(range(0, 300));
    const large = setOf(range(200, 5000));
    small.merge(large);
    expect(small.distinct()).toBe(5000);
    expect(large.distinct()).toBe(4800);
    const again = setOf(range(200, 5000));
    again.merge(setOf(range(0, 300)));
    expect(again.distinct()).toBe(5000);
  });

  it("merges across the exact limit to the registers one pass would hold", () => {
    const onePass = setOf(range(0, 150_000));
    const exact = setOf(range(0, 60_000));
    const sketched = setOf(range(40_000, 150_000));
    expect(sketched.approximate).toBe(true);
    const left = setOf(range(0, 60_000));
    left.merge(sketched);
    sketched.merge(exact);
    expect(left.hll!.registers).toEqual(onePass.hll!.registers);
    expect(sketched.hll!.registers).toEqual(onePass.hll!.registers);
    // Two exact sets whose union passes the limit sketch in the merge.
    const a = setOf(range(0, 70_000));
    a.merge(setOf(range(60_000, 150_000)));
    expect(a.hll!.registers).toEqual(onePass.hll!.registers);
  });

  it("is stored as a KeySketch without values is, both ways", () => {
    const texts = range(0, 2000);
    const set = setOf(texts);
    const sketch = new KeySketch(false);
    for (const text of texts) sketch.add(...keyed(text), 3);
    const fromSet = KeySketch.decode(new ByteReader(bytesOf((out) => set.encode(out))), false);
    expect(fromSet.distinct()).toBe(2000);
    const fromSketch = DistinctTexts.decode(new ByteReader(bytesOf((out) => sketch.encode(out))));
    expect(fromSketch.distinct()).toBe(2000);
    fromSketch.merge(setOf(range(1000, 3000)));
    expect(fromSketch.distinct()).toBe(3000);
    const sketched = setOf(range(0, 120_000));
    const stored = bytesOf((out) => sketched.encode(out));
    expect(DistinctTexts.decode(new ByteReader(stored)).hll!.registers).toEqual(sketched.hll!.registers);
    expect(KeySketch.decode(new ByteReader(stored), false).distinct()).toBe(sketched.distinct());
  });
});
