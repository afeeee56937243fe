// Range reads of the joined gzip (RFC 9110 §14): any byte range, across segment boundaries,
// equals the same slice of the whole file, and reads only the segment bytes it covers.
import { describe, expect, it } from "vitest";
import { ifRangeAllows, parseByteRange } from "../src/read/byte-range.ts";
import { compressSegment } from "../src/wire/deflate-segment.ts";
import { crc32Combine } from "../src/wire/crc32.ts";
import { joinedGzipLength, joinedGzipStream } from "../src/wire/gzip-join.ts";
import { joinedGzipRangeStream, type RangedSegment } from "../src/wire/gzip-range.ts";
import { mulberry32, randomInt } from "./helpers/random.ts";

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("parseByteRange", () => {
  it("reads one range, a suffix or an open end; ignores what it cannot serve", () => {
    expect(parseByteRange("bytes=0-99", 1000)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange("bytes=900-", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-100", 1000)).toEqual({ start: 900, end: 999 });
    expect(parseByteRange("bytes=-5000", 1000)).toEqual({ start: 0, end: 999 });
    expect(parseByteRange("bytes=990-5000", 1000)).toEqual({ start: 990, end: 999 });
    expect(parseByteRange("bytes=1000-", 1000)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=-0", 1000)).toBe("unsatisfiable");
    expect(parseByteRange(undefined, 1000)).toBeNull();
    expect(parseByteRange("bytes=0-1,5-6", 1000)).toBeNull();
    expect(parseByteRange("items=0-1", 1000)).toBeNull();
    expect(parseByteRange("bytes=9-3", 1000)).toBeNull();
  });

  it("If-Range matches only the exact strong ETag", () => {
    expect(ifRangeAllows(undefined, '"v.gz"')).toBe(true);
    expect(ifRangeAllows('"v.gz"', '"v.gz"')).toBe(true);
    expect(ifRangeAllows('W/"v.gz"', '"v.gz"')).toBe(false);
    expect(ifRangeAllows('"other"', '"v.gz"')).toBe(false);
    expect(ifRangeAllows("Tue, 24 Nov 2026 10:00:00 GMT", '"v.gz"')).toBe(false);
  });
});

describe("joinedGzipRangeStream", () => {
  it("random ranges across segment boundaries equal slices of the whole file, reading only what they cover", async () => {
    const random = mulberry32(7);
    const encoder = new TextEncoder();
    const raws = Array.from({ length: 6 }, (_, i) => encoder.encode(Array.from({ length: 50 + i * 40 }, (_, r) => `${i},${r},${random()}\n`).join("")));
    const compressed = raws.map((raw) => compressSegment(raw, 3));
    let crc = 0;
    let rawLength = 0;
    for (const c of compressed) {
      crc = rawLength === 0 ? c.crc : crc32Combine(crc, c.crc, c.rawBytes);
      rawLength += c.rawBytes;
    }
    const whole = await bytesOf(joinedGzipStream(compressed.map((c) => async () => new Response(c.data).body!), crc, rawLength));
    expect(whole.length).toBe(joinedGzipLength(compressed.map((c) => c.compressedBytes)));
    let bytesRead = 0;
    const segments: RangedSegment[] = compressed.map((c) => ({
      compressedBytes: c.compressedBytes,
      open: async (offset, length) => {
        bytesRead += length;
        return new Response(c.data.slice(offset, offset + length)).body!;
      },
    }));
    for (let trial = 0; trial < 200; trial++) {
      const start = randomInt(random, 0, whole.length - 1);
      const end = randomInt(random, start, whole.length - 1);
      bytesRead = 0;
      const part = await bytesOf(joinedGzipRangeStream(segments, crc, rawLength, start, end));
      expect(part).toEqual(whole.slice(start, end + 1));
      expect(bytesRead).toBeLessThanOrEqual(end - start + 1);
    }
  });
});
