// RecordSkipper must agree with CsvRecordDecoder on where every record ends, whatever the
// quoting, line breaks and chunk boundaries, or the rows endpoint would start mid-record.
import { describe, expect, it } from "vitest";
import { CsvRecordDecoder } from "../src/csv/index.ts";
import { RecordSkipper } from "../src/csv/record-skipper.ts";
import { encodeRows, mulberry32, randomInt, randomTable } from "./helpers/random.ts";

/** Skips `n` records of `bytes` fed in chunks of the given sizes; returns the absolute end. */
function skipInChunks(bytes: Uint8Array, n: number, random: () => number): number {
  const skipper = new RecordSkipper(n);
  let at = 0;
  while (at < bytes.length) {
    const size = randomInt(random, 1, 64);
    const end = skipper.push(bytes.subarray(at, at + size));
    if (end >= 0) return at + end;
    at += size;
  }
  return -1;
}

function decodeFrom(bytes: Uint8Array, from: number): string[][] {
  const decoder = new CsvRecordDecoder({ midFile: true });
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(from));
  return [...decoder.push(text), ...decoder.finish()];
}

describe("RecordSkipper", () => {
  it("skips exactly n records of random RFC 4180 tables in random chunks", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = mulberry32(seed);
      const columns = randomInt(random, 1, 4);
      const table = randomTable(random, columns, randomInt(random, 1, 12));
      const bytes = new TextEncoder().encode(encodeRows(table, random() < 0.5 ? "\n" : "\r\n", random));
      for (let n = 1; n <= table.length; n++) {
        const end = skipInChunks(bytes, n, random);
        if (n === table.length) {
          expect(end, `seed ${seed}`).toBe(bytes.length);
        } else {
          expect(decodeFrom(bytes, end), `seed ${seed} n ${n}`).toEqual(table.slice(n));
        }
      }
    }
  });

  it("counts blank lines as records and reports -1 until the last skipped record ends", () => {
    const bytes = new TextEncoder().encode('a\n\n\r\n"b\nc"\nd');
    expect(skipInChunks(bytes, 3, mulberry32(7))).toBe(5);
    expect(skipInChunks(bytes, 4, mulberry32(7))).toBe(11);
    expect(new RecordSkipper(5).push(bytes)).toBe(-1);
    const done = new RecordSkipper(1);
    expect(done.push(bytes)).toBe(2);
    expect(done.done).toBe(true);
  });
});
