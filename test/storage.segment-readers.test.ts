// Every reader of stored CSV bytes reads a segment a group of parts at a time (inflateParts,
// src/storage/segment-inflate.ts), so one slower than R2 never has a whole segment inflated
// ahead of it: a byte range of a part list, the `.csv` range download, the rows window, and
// the re-check of stored rows after a schema change. R2 is the real local one, each body served
// only as it is read and counted.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../src/config.ts";
import { rawRangeStream } from "../src/read/csv-range.ts";
import { readRowWindow } from "../src/read/row-reader.ts";
import { SchemaError } from "../src/schema/schema-error.ts";
import { inflatePartRange } from "../src/storage/segment-inflate.ts";
import { openSegment } from "../src/storage/segment-store.ts";
import { concatBytes } from "../src/wire/deflate-segment.ts";
import { typeStoredContent } from "../src/write/ingest/retype.ts";
import { mulberry32, randomInt } from "./helpers/random.ts";
import { csvSegment, gatedR2, readAheadBound } from "./helpers/served-segment.ts";

const pause = () => new Promise((resolve) => setTimeout(resolve, 1));

/** A CSV of `rows` data rows (id, an integer, some text) that compresses about as real CSV does. */
function csvText(seed: number, rows: number, bad = -1): string {
  const random = mulberry32(seed);
  const lines = ["id,n,text"];
  for (let i = 0; i < rows; i++) lines.push(`${i},${i === bad ? "x" : randomInt(random, 0, 1e9)},word ${randomInt(random, 0, 5000)} ${"y".repeat(randomInt(random, 0, 30))}`);
  return lines.join("\n") + "\n";
}

async function stored(csv: string, partBytes: number) {
  const segment = csvSegment(csv, partBytes);
  const key = `test/segment-readers/${crypto.randomUUID()}`;
  await env.CONTENT.put(key, segment.bytes);
  const row = { key, compressedBytes: segment.bytes.length, rawBytes: segment.raw.length, rowCount: segment.parts.reduce((n, p) => n + p.rowCount, 0), parts: segment.parts };
  return { ...segment, key, row };
}

describe("inflatePartRange", () => {
  it("gives the content of the parts asked for from one read of just their bytes, a group at a time", async () => {
    const { raw, parts, key } = await stored(csvText(1, 60_000), 200_000);
    expect(parts.length).toBeGreaterThan(12);
    const gated = gatedR2(env.CONTENT);
    const [first, end] = [3, parts.length - 2];
    const allowed = readAheadBound(parts, first);
    const out: Uint8Array[] = [];
    let taken = 0;
    for await (const view of inflatePartRange((range) => openSegment(gated.bucket, key, range), parts, first, end, 100_000)) {
      out.push(view.slice());
      taken += view.length;
      expect(gated.pulled(), `after ${taken} bytes`).toBeLessThanOrEqual(allowed(taken));
      await pause();
    }
    const from = parts[first]!.compressedOffset;
    expect(gated.reads.map((r) => [r.offset, r.length])).toEqual([[from, parts[end]!.compressedOffset - from]]);
    const rawFrom = parts.slice(0, first).reduce((n, p) => n + p.rawBytes, 0);
    const rawTo = rawFrom + parts.slice(first, end).reduce((n, p) => n + p.rawBytes, 0);
    expect(concatBytes(out)).toEqual(raw.slice(rawFrom, rawTo));
  });
});

describe("the .csv range download", () => {
  it("reads each segment once, from the first part the range covers, no further than the group its reader has reached", async () => {
    const a = await stored(csvText(2, 50_000), 250_000);
    const b = await stored(csvText(3, 50_000).slice("id,n,text\n".length), 250_000);
    const gated = gatedR2(env.CONTENT);
    const segments = [a, b].map((s) => ({ parts: s.parts, open: (range: { offset: number; length: number }) => openSegment(gated.bucket, s.key, range) }));
    const whole = concatBytes([a.raw, b.raw]);
    // From inside a's second part to inside b's third.
    const start = a.parts[0]!.rawBytes + 1234;
    const end = a.raw.length + b.parts.slice(0, 2).reduce((n, p) => n + p.rawBytes, 0) + 999;
    const reader = rawRangeStream(segments, start, end).getReader();
    const allowed = readAheadBound(a.parts, 1);
    const out: Uint8Array[] = [];
    let taken = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.push(value);
      taken += value.length;
      if (gated.reads.length === 1) expect(gated.pulled(), `after ${taken} bytes`).toBeLessThanOrEqual(allowed(taken + 1234));
      await pause();
    }
    expect(concatBytes(out)).toEqual(whole.slice(start, end + 1));
    expect(gated.reads.map((r) => [r.key, r.offset, r.length])).toEqual([
      [a.key, a.parts[1]!.compressedOffset, a.bytes.length - a.parts[1]!.compressedOffset],
      [b.key, 0, b.parts[3]!.compressedOffset],
    ]);
  });
});

describe("the rows window", () => {
  it("reads the parts that hold the window, each alone, and stops inside the last", async () => {
    const { parts, key, row } = await stored(csvText(4, 60_000), 200_000);
    const gated = gatedR2(env.CONTENT);
    const before = parts.slice(0, 5).reduce((n, p) => n + p.rowCount, 0);
    const offset = before - 10;
    const rows = await readRowWindow([row], (k, range) => openSegment(gated.bucket, k, range), { offset, limit: 30, maxChars: Number.MAX_SAFE_INTEGER });
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: 30 }, (_, i) => String(offset + i)));
    expect(gated.reads.map((r) => [r.key, r.offset, r.length])).toEqual([4, 5].map((i) => [key, parts[i]!.compressedOffset, parts[i]!.compressedBytes]));
    expect(gated.reads.map((r) => r.pulled())).toEqual([4, 5].map((i) => parts[i]!.compressedBytes));
  });
});

describe("re-checking stored rows under new types", () => {
  const schema = {
    fields: [
      { name: "id", type: "integer" as const },
      { name: "n", type: "integer" as const },
      { name: "text", type: "string" as const },
    ],
    missingValues: [""],
  };
  // An append upload's stored rows: no header (src/uploads/schema.ts).
  const rowsMode = { kind: "rows" as const, expectedColumns: 3, header: ["id", "n", "text"] };
  const withoutHeader = (csv: string) => csv.slice("id,n,text\n".length);

  it("fails at a row that no longer fits without reading the segment past that row's group", async () => {
    const bad = 30_000;
    const csv = withoutHeader(csvText(5, 150_000, bad));
    const { parts, row, bytes } = await stored(csv, 256 * 1024);
    const gated = gatedR2(env.CONTENT);
    const failed = await typeStoredContent(gated.bucket, [row], { kind: "check", schema }, DEFAULT_LIMITS, rowsMode).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SchemaError);
    expect((failed as SchemaError).code).toBe("schema_mismatch");
    expect((failed as SchemaError).details).toMatchObject({ column: "n", value: "x" });
    // The scanner has been given at most one view (256 KiB) past the bad row's line.
    const badEnd = csv.indexOf("\n", csv.indexOf(`\n${bad},x,`) + 1) + 1;
    expect(gated.pulled()).toBeLessThanOrEqual(readAheadBound(parts)(badEnd + 256 * 1024));
    expect(gated.pulled()).toBeLessThan(bytes.length / 2);
  });

  it("reads every part of every segment when all rows fit", async () => {
    const a = await stored(withoutHeader(csvText(6, 40_000)), 256 * 1024);
    const b = await stored(withoutHeader(csvText(7, 40_000)), 256 * 1024);
    const gated = gatedR2(env.CONTENT);
    const typed = await typeStoredContent(gated.bucket, [a.row, b.row], { kind: "check", schema }, DEFAULT_LIMITS, rowsMode);
    expect(typed.schema.fields.map((f) => f.type)).toEqual(["integer", "integer", "string"]);
    expect(gated.pulled()).toBe(a.bytes.length + b.bytes.length);
  });
});
