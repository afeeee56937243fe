// How the twin's page reads are grouped into R2 range reads (src/query/read-runs.ts), and the
// bounded store of part metadata (src/storage/kept-in-isolate.ts).
import { describe, expect, it } from "vitest";
import { PARALLEL_READS, READ_COST_BYTES, readRuns } from "../../src/query/read-runs.ts";
import { KeptInIsolate } from "../../src/storage/kept-in-isolate.ts";
import type { PartMetadata } from "../../src/columnar/parquet/index.ts";

const KIB = 1024;
const span = (offset: number, length: number, tag: string) => ({ offset, end: offset + length, tag });
const covers = (runs: { offset: number; end: number }[]) => runs.map((run) => [run.offset, run.end]);

describe("readRuns", () => {
  it("joins spans whose gap costs fewer bytes than a read, and keeps apart those whose gap costs more", () => {
    const spans = [span(0, 10 * KIB, "a"), span(10 * KIB + READ_COST_BYTES, 10 * KIB, "b"), span(20 * KIB + 2 * READ_COST_BYTES + 1, 10 * KIB, "c")];
    const runs = readRuns(spans);
    expect(covers(runs)).toEqual([
      [0, 20 * KIB + READ_COST_BYTES],
      [20 * KIB + 2 * READ_COST_BYTES + 1, 30 * KIB + 2 * READ_COST_BYTES + 1],
    ]);
    expect(runs.map((run) => run.spans.map((s) => s.tag))).toEqual([["a", "b"], ["c"]]);
  });

  it("sorts spans, and an overlapping or contained span adds no bytes", () => {
    const runs = readRuns([span(5000, 100, "late"), span(0, 8000, "whole"), span(100, 50, "inside")]);
    expect(covers(runs)).toEqual([[0, 8000]]);
    expect(runs[0]!.spans.map((s) => s.tag)).toEqual(["whole", "inside", "late"]);
  });

  it("past the parallel cap joins the smallest gaps first, and no gap wider than 512 KiB", () => {
    // Eight spans 1 MiB apart, except two pairs 300 KiB apart: more than a read costs, less than the cap's bound.
    const starts = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * 1024 * KIB);
    starts[3] = starts[2]! + 310 * KIB;
    starts[6] = starts[5]! + 310 * KIB;
    const runs = readRuns(starts.map((at, i) => span(at, 10 * KIB, String(i))));
    expect(runs.length).toBe(PARALLEL_READS);
    expect(runs.map((run) => run.spans.map((s) => s.tag).join(""))).toEqual(["0", "1", "23", "4", "56", "7"]);
    // All gaps 1 MiB: more reads than the cap rather than megabytes read for nothing.
    expect(readRuns(Array.from({ length: 9 }, (_, i) => span(i * 1024 * KIB, KIB, String(i)))).length).toBe(9);
  });

  it("a read cost of zero joins only touching spans", () => {
    expect(covers(readRuns([span(0, 10, "a"), span(10, 10, "b"), span(21, 10, "c")], 0))).toEqual([
      [0, 20],
      [21, 31],
    ]);
  });
});

describe("KeptInIsolate", () => {
  const meta = (n: number) => ({ rowGroups: [], kinds: [], n }) as unknown as PartMetadata;

  it("drops the least recently used entry once its bytes pass the bound", () => {
    const kept = new KeptInIsolate<PartMetadata>(300);
    kept.keep("a", meta(1), 100);
    kept.keep("b", meta(2), 100);
    kept.keep("c", meta(3), 100);
    expect(kept.get("a")).toBeDefined();
    kept.keep("d", meta(4), 100);
    // "b" was the least recently used ("a" was asked for since).
    expect(kept.get("b")).toBeUndefined();
    expect(kept.get("a")).toBeDefined();
    expect(kept.get("c")).toBeDefined();
    expect(kept.get("d")).toBeDefined();
    expect(kept.bytes).toBe(300);
    kept.keep("e", meta(5), 250);
    expect(kept.bytes).toBeLessThanOrEqual(300);
    expect(kept.get("e")).toBeDefined();
  });

  it("keeps nothing larger than its bound, and a key kept again counts once", () => {
    const kept = new KeptInIsolate<PartMetadata>(100);
    kept.keep("big", meta(1), 101);
    expect(kept.get("big")).toBeUndefined();
    expect(kept.bytes).toBe(0);
    kept.keep("x", meta(1), 60);
    kept.keep("x", meta(2), 60);
    expect(kept.bytes).toBe(60);
    expect((kept.get("x") as unknown as { n: number }).n).toBe(2);
  });
});
