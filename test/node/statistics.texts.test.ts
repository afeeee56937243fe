// A string column's distinct set (src/columnar/statistics/distinct-texts.ts, docs/statistics.md
// "The summaries"): keys alone, exact up to 100,000 of them and then HyperLogLog, stored in the
// same bytes as a numeric column's KeySketch without values, and merged exactly across that form.
import { describe, expect, it } from "vitest";
import { ByteReader, ByteWriter } from "../../src/columnar/statistics/bytes.ts";
import { DistinctTexts } from "../../src/columnar/statistics/distinct-texts.ts";
import { hashText, hashUtf8, KEY } from "../../src/columnar/statistics/hash.ts";
import { KeySketch } from "../../src/columnar/statistics/key-sketch.ts";
import { EXACT_DISTINCT_LIMIT, EXACT_VALUES_LIMIT } from "../../src/columnar/statistics/limits.ts";
import { statisticsDocument } from "../../src/columnar/statistics/document.ts";
import { StringColumn } from "../../src/columnar/statistics/string-column.ts";
import { createSummaries, decodeSummary, encodeSummary, mergeSummaries, observeRow, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";

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

  it("counts exactly past the set's limit by sorted keys, to the distinct limit, and sketches past that, within 2 %", () => {
    const set = setOf(range(0, EXACT_VALUES_LIMIT + 1));
    expect(set.hll).not.toBeNull();
    expect(set.approximate).toBe(false);
    expect(set.distinct()).toBe(EXACT_VALUES_LIMIT + 1);
    for (const text of range(0, EXACT_DISTINCT_LIMIT)) set.add(...keyed(text));
    expect(set.approximate).toBe(false);
    expect(set.distinct()).toBe(EXACT_DISTINCT_LIMIT);
    set.add(...keyed("one more"));
    expect(set.approximate).toBe(true);
    expect(Math.abs(set.distinct() - (EXACT_DISTINCT_LIMIT + 1))).toBeLessThanOrEqual(0.02 * EXACT_DISTINCT_LIMIT);
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
    // Every key is read back as it was, the key (0, 0) among them: the same keys again add nothing.
    set.add(0, 0);
    const again = DistinctTexts.decode(new ByteReader(bytesOf((out) => set.encode(out))));
    again.merge(setOf(texts));
    again.add(0, 0);
    expect(again.distinct()).toBe(2001);
    expect(KeySketch.decode(new ByteReader(bytesOf((out) => set.encode(out))), false).distinct()).toBe(2001);
    const sketched = setOf(range(0, 120_000));
    const stored = bytesOf((out) => sketched.encode(out));
    expect(DistinctTexts.decode(new ByteReader(stored)).hll!.registers).toEqual(sketched.hll!.registers);
    expect(KeySketch.decode(new ByteReader(stored), false).distinct()).toBe(sketched.distinct());
  });
});

// The frequent values' byte bound (docs/statistics.md, "Exact and approximate"): long texts leave
// exact counting of `top` before 4,096 distinct values, never at or below 1,024 of them.
describe("a string column of long texts", () => {
  const schema = { fields: [{ name: "x", type: "string" as const }], missingValues: [""] };
  const long = (i: number) => `${i} ${"ü".repeat(400)}`;
  /** Text i appears 1 + (i mod 7) times, in a shuffled but fixed order. */
  function cells(from: number, to: number): string[] {
    const out: string[] = [];
    for (let i = from; i < to; i++) for (let k = 0; k <= i % 7; k++) out.push(long(i));
    for (let i = out.length - 1; i > 0; i--) {
      const j = (i * 7919) % (i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
  function summaryOf(texts: string[]): TableSummary {
    const summary = createSummaries(schema);
    for (const text of texts) observeRow(summary, [text]);
    return decodeSummary(encodeSummary(summary));
  }
  function entryOf(summary: TableSummary): Record<string, unknown> {
    return statisticsDocument(schema, summary).columns[0] as unknown as Record<string, unknown>;
  }
  function truth(texts: string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
    return counts;
  }
  /** Each listed count is a lower bound at most rows ÷ 1,024 below the truth. */
  function expectWithinBound(entry: Record<string, unknown>, texts: string[]): void {
    const counts = truth(texts);
    const top = entry.top as { value: string; count: number }[];
    expect(top).toHaveLength(10);
    for (const { value, count } of top) {
      const whole = [...counts.keys()].find((text) => text.startsWith(value.slice(0, -1)))!;
      expect(count).toBeLessThanOrEqual(counts.get(whole)!);
      expect(count).toBeGreaterThanOrEqual(counts.get(whole)! - texts.length / 1024);
    }
  }

  it("keeps every count exact up to 1,024 distinct texts however long", () => {
    const texts = cells(0, 1024);
    const entry = entryOf(summaryOf(texts));
    expect(entry.top_approximate).toBeUndefined();
    expect(entry.distinct).toBe(1024);
    expect((entry.top as { count: number }[])[0]!.count).toBe(7);
  });

  it("leaves exact counting by bytes well before 4,096 distinct texts, marked and within the bound", () => {
    const texts = cells(0, 3000);
    const entry = entryOf(summaryOf(texts));
    expect(entry.top_approximate).toBe(true);
    expect(entry.distinct).toBe(3000);
    expect(entry.distinct_approximate).toBeUndefined();
    expectWithinBound(entry, texts);
    // Short texts, as many of them, stay exact.
    const short = createSummaries(schema);
    for (let i = 0; i < 3000; i++) observeRow(short, [`${i}`]);
    expect(entryOf(short).top_approximate).toBeUndefined();
  });

  it("merges two exact sides whose texts together pass the bound into a marked summary within it", () => {
    const left = cells(0, 1500);
    const right = cells(1000, 2500);
    const a = summaryOf(left);
    const b = summaryOf(right);
    expect(entryOf(a).top_approximate).toBeUndefined();
    expect(entryOf(b).top_approximate).toBeUndefined();
    const merged = mergeSummaries(a, b);
    const entry = entryOf(decodeSummary(encodeSummary(merged)));
    expect(entry.top_approximate).toBe(true);
    expect(entry.distinct).toBe(2500);
    expect(entry.distinct_approximate).toBeUndefined();
    expectWithinBound(entry, [...left, ...right]);
  });
});

describe("a string column told its texts' UTF-8 bytes alone", () => {
  const encoder = new TextEncoder();
  /**
   * Mostly-distinct texts with a few frequent ones, past U+FFFF (two UTF-16 units, four bytes)
   * and past the 256 units a kept text is cut to, with a four-byte character across the cut.
   */
  function cells(count: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 5 === 0) out.push(`frequent ${i % 35}`);
      else if (i % 97 === 0) out.push(`${"x".repeat(255)}😀 long ${i}`);
      else if (i % 3 === 0) out.push(`é😀 ${i} ü`);
      // 100 code points, 200 UTF-16 units: these fill the counters' unit budget twice as fast.
      else if (i % 7 === 1) out.push(`${"😀".repeat(96)} ${i % 1000}`);
      else out.push(`user${i}@example.com`);
    }
    return out;
  }
  /** `bytesAlone`: told as bytes; "keyed": as bytes with the key the cell kernel makes (observeKeyed). */
  function fed(texts: string[], bytesAlone: boolean | "keyed", keys: "utf8" | "utf16" = "utf8"): StringColumn {
    const column = new StringColumn(keys);
    for (const text of texts) {
      // Each text at an offset inside a larger buffer, as the encoder's page holds it.
      const bytes = encoder.encode(`ab${text}cd`);
      if (bytesAlone === "keyed") {
        const points = hashUtf8(bytes, 2, bytes.length - 4);
        column.observeKeyed(bytes, 2, bytes.length - 4, points, text.length);
      } else if (bytesAlone) column.observeUtf8(bytes, 2, bytes.length - 4);
      else column.observeText(text, 1);
    }
    return column;
  }
  function encoded(column: StringColumn): Buffer {
    const out = new ByteWriter();
    column.encode(out);
    return Buffer.from(out.finish());
  }

  it("keeps the summary a string cell by cell keeps, byte for byte, through purges, merges and a rekey", () => {
    const texts = cells(30_000);
    const lazy = fed(texts, true);
    const eager = fed(texts, false);
    expect(lazy.frequent.approximate).toBe(true);
    expect(encoded(lazy)).toEqual(encoded(eager));
    expect(lazy.entry()).toEqual(eager.entry());
    expect(lazy.entry().top.some((top) => top.value.endsWith("…"))).toBe(false);
    expect(encoded(fed(texts, "keyed"))).toEqual(encoded(eager));
    // A part that keeps format 1's keys hashes the text's UTF-16 code units, not the kernel's key.
    expect(encoded(fed(texts.slice(0, 3_000), "keyed", "utf16"))).toEqual(encoded(fed(texts.slice(0, 3_000), false, "utf16")));

    // Exact counters holding texts not read yet, merged either way round and keyed again for format 1.
    const few = cells(2_000);
    const mergedLazy = fed(few, true);
    mergedLazy.merge(fed(few.slice(0, 900), true));
    const mergedEager = fed(few, false);
    mergedEager.merge(fed(few.slice(0, 900), false));
    expect(encoded(mergedLazy)).toEqual(encoded(mergedEager));
    // A format-1 side past exact counting cannot be keyed again, so the exact side is.
    const old = new StringColumn("utf16");
    for (let i = 0; i < 5_000; i++) old.observeText(`old ${i}`, 1);
    const short = few.filter((text) => text.length <= 256);
    const rekeyedLazy = fed(short, true);
    rekeyedLazy.merge(old);
    const rekeyedEager = fed(short, false);
    rekeyedEager.merge(old);
    expect(encoded(rekeyedLazy)).toEqual(encoded(rekeyedEager));
    expect(rekeyedLazy.keys).toBe("utf16");
  });

  it("keeps the texts of a page written over after pageDone, whether the page is copied whole or text by text", () => {
    // Mostly distinct texts (each page's new texts fill it: copied at once), some told twice in a
    // row (purges keep them, and copy those still in the page), then a few new texts among repeats
    // (copied one by one).
    const twice = Array.from({ length: 30_000 }, (_, i) => `solo ${i >> 1} ${i % 20 < 2 ? "" : i}`);
    const sparse = Array.from({ length: 30_000 }, (_, i) => (i % 50 === 0 ? `rare ${i}` : `common ${i % 40}`));
    for (const texts of [cells(30_000), twice, sparse]) {
      const paged = new StringColumn();
      const page = new Uint8Array(64 * 1024);
      let used = 0;
      let inPage = 0;
      for (const text of texts) {
        const bytes = encoder.encode(text);
        if (used + bytes.length > page.length || inPage === 1024) {
          paged.pageDone();
          // Written over, as the encoder's next page is.
          page.fill(0x78);
          used = 0;
          inPage = 0;
        }
        page.set(bytes, used);
        const points = hashUtf8(page, used, bytes.length);
        paged.observeKeyed(page, used, bytes.length, points, text.length);
        used += bytes.length;
        inPage++;
      }
      paged.pageDone();
      page.fill(0x78);
      expect(encoded(paged)).toEqual(encoded(fed(texts, false)));
      expect(paged.entry()).toEqual(fed(texts, false).entry());
    }
  });

  it("stores well-formed UTF-8 whatever bytes it was told, its ASCII texts as they were told", () => {
    const column = new StringColumn();
    const page = Uint8Array.of(0x61, 0x62, 0xff, 0x63, 0x61, 0x62);
    for (const [start, length] of [[0, 2], [2, 2], [4, 2]] as const) {
      const points = hashUtf8(page, start, length);
      column.observeKeyed(page, start, length, points, length);
    }
    const stored = StringColumn.decode(new ByteReader(encoded(column)));
    expect(stored.entry().top).toEqual([{ value: "ab", count: 2 }, { value: "\uFFFDc", count: 1 }]);
  });

  it("keeps a long text cut at 256 units, never half a surrogate pair", () => {
    const long = `${"x".repeat(255)}😀 tail`;
    const column = fed([long, long], true);
    expect(column.entry().top).toEqual([{ value: `${"x".repeat(255)}…`, count: 2 }]);
    expect(column.entry().max_length).toBe(long.length - 1);
    // 200 code points but 400 UTF-16 units: cut too.
    const wide = "😀".repeat(200);
    expect(fed([wide], true).entry().top).toEqual([{ value: `${"😀".repeat(128)}…`, count: 1 }]);
  });
});
