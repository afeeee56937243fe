// Statistics counted in sorted batches (docs/statistics.md, "Cost"): the radix sort orders every
// double as TypedArray.prototype.sort does, KLL fed sorted runs keeps its rank bound, and a part
// whose numeric columns pass the exact limit, fed by the encoder batch by batch, keeps every
// documented bound against the truth counted here from the cells, alone and merged with another.
import { describe, expect, it } from "vitest";
import { statisticsDocument, type ColumnStatistics } from "../../src/columnar/statistics/document.ts";
import { KEY, keyOfNumber } from "../../src/columnar/statistics/hash.ts";
import { KeySketch } from "../../src/columnar/statistics/key-sketch.ts";
import { KllSketch } from "../../src/columnar/statistics/kll.ts";
import { EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { sortDoubles } from "../../src/columnar/statistics/radix-sort.ts";
import { mergeSummaries, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";
import { partSummary } from "../helpers/part-summary.ts";
import { mulberry32, randomInt, type Random } from "../helpers/random.ts";

type Entry = ColumnStatistics & Record<string, unknown>;
type Bins = { from: unknown; count: number }[];

const SPECIALS = [0, -0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1, 2 ** 53, -(2 ** 53)];

function randomDouble(random: Random): number {
  const kind = random();
  if (kind < 0.2) return randomInt(random, -50, 50);
  if (kind < 0.3) return SPECIALS[randomInt(random, 0, SPECIALS.length - 1)]!;
  if (kind < 0.6) return (random() - 0.5) * 1e6;
  return (random() - 0.5) * 10 ** randomInt(random, -300, 300);
}

/** A double as a number field writes it (Table Schema: INF and -INF). */
const numberText = (value: number) => (value === Infinity ? "INF" : value === -Infinity ? "-INF" : String(value));

const numberOf = (text: string) => (text === "INF" ? Infinity : text === "-INF" ? -Infinity : Number(text));

/** Rows at or below `value` among `sorted`, and below it. */
function ranks(sorted: Float64Array, value: number): { below: number; atOrBelow: number } {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  let end = low;
  while (end < sorted.length && sorted[end] === value) end++;
  return { below: low, atOrBelow: end };
}

describe("statistics in sorted batches", () => {
  it("sortDoubles orders as TypedArray.prototype.sort, −0 and 0 alike", () => {
    const random = mulberry32(7);
    const cases: Float64Array[] = [new Float64Array(0), Float64Array.of(3), Float64Array.from({ length: 5000 }, (_, i) => i), Float64Array.from({ length: 5000 }, (_, i) => -i / 3)];
    for (let t = 0; t < 200; t++) cases.push(Float64Array.from({ length: randomInt(random, 0, 9000) }, () => randomDouble(random)));
    for (const values of cases) {
      const expected = values.slice().sort();
      sortDoubles(values);
      // −0 and 0 are one value to the statistics (the feed reads −0 as 0 before sorting).
      expect(Array.from(values, (v) => v + 0)).toEqual(Array.from(expected, (v) => v + 0));
    }
  });

  it("sortDoubles orders evenly spread batches, with equal values, narrow ranges and a few crowded buckets, as TypedArray.prototype.sort", () => {
    const random = mulberry32(8);
    const spreads: ((i: number) => number)[] = [
      () => Math.round(random() * 500_000) / 100,
      () => (1.5e15 + Math.floor(random() * 1.6e11)) * 1000,
      () => (random() - 0.5) * 1e-300,
      () => 1 + random() * 2 ** -40,
      () => randomInt(random, -3000, 3000),
      // Nearly even, but a sixteenth of the values piled on a few points.
      (i) => (i % 17 === 0 ? randomInt(random, 0, 3) * 1000 : random() * 4000),
      // Past the bucket path: a few values dominate, or the range overflows.
      (i) => (i % 3 === 0 ? 7 : random() * 100),
      () => (random() < 0.5 ? -1 : 1) * Number.MAX_VALUE * random(),
    ];
    for (const spread of spreads) {
      for (const n of [255, 256, 1000, 8192]) {
        const values = Float64Array.from({ length: n }, (_, i) => spread(i));
        const expected = values.slice().sort();
        sortDoubles(values);
        expect(Array.from(values)).toEqual(Array.from(expected));
      }
    }
  });

  it("an exact set fed batches in any order, that overlap and repeat, counts every value as one fed value by value", () => {
    const random = mulberry32(23);
    const batched = new KeySketch(true);
    const single = new KeySketch(true);
    for (let b = 0; b < 60; b++) {
      const n = b % 9 === 0 ? 1 : randomInt(random, 1, 8192);
      const batch = new Float64Array(n);
      // Few distinct values in some batches (long runs of equals), wide ranges in others, a skewed
      // spread in the last ones; about 13,500 distinct in all, inside the exact limit.
      const spread = b % 3 === 0 ? 20 : 1500;
      for (let i = 0; i < n; i++) batch[i] = b >= 40 ? Math.round(Math.exp(random() * 8)) : randomInt(random, -spread, spread) / (b % 2 === 0 ? 1 : 4);
      if (b % 5 === 0) sortDoubles(batch);
      for (const value of batch) {
        keyOfNumber(value);
        single.add(KEY[0]!, KEY[1]!);
      }
      batched.addBatch(batch, n);
      if (b % 7 === 0) expect(batched.distinct()).toBe(single.distinct());
    }
    expect(batched.approximate).toBe(false);
    const a = batched.weighted();
    const b = single.weighted();
    expect(a.values).toEqual(b.values);
    expect(a.weights).toEqual(b.weights);
  });

  it("batches stay exact up to the exact limit's distinct values however many wait unmerged, and one more is sketched, its distinct count still exact", () => {
    const random = mulberry32(24);
    for (const skewed of [false, true]) {
      const distinct = Float64Array.from({ length: EXACT_VALUES_LIMIT + 1 }, (_, i) => (skewed ? Math.exp(i / 4000) : i * 0.25));
      // Every value once, then 150,000 repeats drawn from them, in batches of the feed's size.
      const fed = Float64Array.from({ length: distinct.length + 150_000 }, (_, i) => (i < distinct.length ? distinct[i]! : distinct[randomInt(random, 0, distinct.length - 1)]!));
      for (let i = fed.length - 1; i > 0; i--) {
        const j = randomInt(random, 0, i);
        [fed[i], fed[j]] = [fed[j]!, fed[i]!];
      }
      for (const leaveOut of [true, false]) {
        const last = distinct[distinct.length - 1]!;
        const values = leaveOut ? fed.filter((value) => value !== last) : fed;
        const sketch = new KeySketch(true);
        for (let at = 0; at < values.length; at += 8192) {
          const batch = values.slice(at, at + 8192);
          sketch.addBatch(batch, batch.length);
        }
        const where = `${skewed ? "skewed" : "even"}, ${leaveOut ? "the limit's" : "one more than the limit's"} distinct`;
        expect(sketch.approximate, where).toBe(!leaveOut);
        expect(sketch.distinctApproximate, where).toBe(false);
        expect(sketch.distinct(), where).toBe(leaveOut ? EXACT_VALUES_LIMIT : distinct.length);
        const weights = sketch.weighted().weights;
        expect(weights.reduce((sum, w) => sum + w, 0), where).toBe(values.length);
      }
    }
  });

  it("KLL fed sorted runs, single items and weighted ones keeps ranks within 0.5 %", () => {
    const random = mulberry32(11);
    const sketch = new KllSketch();
    const all: number[] = [];
    while (all.length < 1_000_000) {
      const kind = random();
      if (kind < 0.7) {
        const run = Float64Array.from({ length: randomInt(random, 1, 9000) }, () => Math.round(random() * 1e5) / 10);
        sortDoubles(run);
        sketch.addSorted(run, 0, run.length);
        all.push(...run);
      } else if (kind < 0.9) {
        const value = random() * 1e4;
        sketch.add(value);
        all.push(value);
      } else {
        const value = random() * 1e4;
        const count = randomInt(random, 2, 40);
        sketch.addWeighted(value, count);
        for (let i = 0; i < count; i++) all.push(value);
      }
    }
    const truth = Float64Array.from(all).sort();
    const { values, weights } = sketch.weighted();
    expect(weights.reduce((sum, w) => sum + w, 0)).toBe(truth.length);
    let rank = 0;
    for (let i = 0; i < values.length; i++) {
      rank += weights[i]!;
      const { below, atOrBelow } = ranks(truth, values[i]!);
      // The sketch's rank of values[i] lies within 0.5 % of its true rank range.
      expect(rank).toBeGreaterThanOrEqual(below - 0.005 * truth.length);
      expect(rank).toBeLessThanOrEqual(atOrBelow + 0.005 * truth.length);
    }
  });

  it("KLL holds a few times its capacity in buffers after a run far longer than that, and still keeps ranks within 0.5 %", () => {
    const random = mulberry32(12);
    const run = Float64Array.from({ length: 300_000 }, () => random() * 1e6);
    sortDoubles(run);
    const sketch = new KllSketch();
    sketch.addSorted(run, 0, run.length);
    const merged = new KllSketch();
    merged.merge(sketch);
    merged.merge(sketch);
    for (const kll of [sketch, merged]) {
      const held = (kll as unknown as { levels: Float64Array[]; spare: Float64Array });
      const items = [...held.levels, held.spare].reduce((sum, buffer) => sum + buffer.length, 0);
      // Capacities sum to about 3 × KLL_K (2,048) items; a level and its merge buffer hold at most 2× and 4× its own.
      expect(items).toBeLessThan(20 * 2048);
      const { values, weights } = kll.weighted();
      const total = weights.reduce((sum, w) => sum + w, 0);
      expect(total).toBe(kll === sketch ? run.length : 2 * run.length);
      let rank = 0;
      for (let i = 0; i < values.length; i++) {
        rank += weights[i]!;
        const { below, atOrBelow } = ranks(run, values[i]!);
        const scale = total / run.length;
        expect(rank).toBeGreaterThanOrEqual(below * scale - 0.005 * total);
        expect(rank).toBeLessThanOrEqual(atOrBelow * scale + 0.005 * total);
      }
    }
  });

  it("past the exact limit, the encoder's batches keep distinct, median and histogram within their bounds, alone and merged", () => {
    const random = mulberry32(29);
    const schema: TableSchema = {
      fields: [
        { name: "key", type: "integer" },
        { name: "price", type: "number" },
        { name: "signed", type: "number" },
        { name: "few", type: "integer" },
      ],
      missingValues: [""],
    };
    const table = (from: number, rows: number) =>
      Array.from({ length: rows }, (_, i) => [
        // Distinct and increasing, but not evenly spaced (steps of 2 and 4): a sequence would stay exact.
        String(3 * (from + i) + ((from + i) & 1)),
        random() < 0.02 ? "" : (random() * 5000).toFixed(2),
        numberText(randomDouble(random)),
        String(randomInt(random, 0, 99)),
      ]);
    const summarise = (rows: string[][]): TableSummary => partSummary(schema, rows);
    const first = table(0, 240_000);
    const second = table(240_000, 60_000);
    const check = (rows: string[][], summary: TableSummary) => {
      const document = statisticsDocument(schema, summary);
      schema.fields.forEach((field, c) => {
        const ours = document.columns[c] as Entry;
        const cells = rows.map((row) => row[c]!).filter((cell) => cell !== "");
        const values = Float64Array.from(cells, numberOf).sort();
        const where = field.name;
        expect(ours.nulls, `${where}.nulls`).toBe(rows.length - cells.length);
        expect(numberOf(String(ours.min)), `${where}.min`).toBe(values[0]! + 0);
        expect(numberOf(String(ours.max)), `${where}.max`).toBe(values[values.length - 1]!);
        const distinct = new Set(Array.from(values, (v) => v + 0)).size;
        if (ours.distinct_approximate) expect(Math.abs(ours.distinct - distinct), `${where}.distinct`).toBeLessThanOrEqual(0.02 * distinct);
        else expect(ours.distinct, `${where}.distinct`).toBe(distinct);
        const finite = values.filter((v) => Number.isFinite(v));
        const mean = finite.reduce((sum, v) => sum + v, 0) / finite.length;
        if (where !== "signed") expect(Math.abs(Number(ours.mean) - mean), `${where}.mean`).toBeLessThanOrEqual(1e-9 * Math.abs(mean));
        const median = Number(ours.median);
        const { below, atOrBelow } = ranks(values, median);
        expect(below, `${where}.median`).toBeLessThanOrEqual(values.length / 2 + 0.005 * rows.length);
        expect(atOrBelow, `${where}.median`).toBeGreaterThanOrEqual(values.length / 2 - 0.005 * rows.length);
        const bins = ours.histogram as Bins;
        const edges = bins.map((bin, b) => (b === 0 ? -Infinity : Number(bin.from)));
        bins.forEach((bin, b) => {
          const upper = b + 1 < edges.length ? edges[b + 1]! : Infinity;
          const truth = ranks(values, upper).below - ranks(values, edges[b]!).below + (upper === Infinity ? values.length - ranks(values, Infinity).below : 0);
          expect(Math.abs(bin.count - truth), `${where}.histogram[${b}]`).toBeLessThanOrEqual(0.005 * rows.length);
        });
      });
      return document;
    };
    const alone = check(first, summarise(first));
    expect((alone.columns[0] as Entry).distinct_approximate).toBe(true);
    expect((alone.columns[3] as Entry).distinct_approximate).toBeUndefined();
    check([...first, ...second], mergeSummaries(summarise(first), summarise(second)));
  });
});
