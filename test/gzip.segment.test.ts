// Segments (docs/storage-protocol.md): raw DEFLATE ending in a sync flush, no final block, self-contained;
// checked by decoding with fflate and with the runtime's DecompressionStream.
import { inflateSync } from "fflate";
import { describe, expect, it } from "vitest";
import { crc32 } from "../src/wire/crc32.ts";
import { SegmentCompressor, compressSegment, segmentCompressorStream } from "../src/wire/deflate-segment.ts";
import { mulberry32 } from "./helpers/random.ts";

/** Seeded bytes drawn from an alphabet of `alphabet` symbols: 1 is a run, 256 is noise. */
function seededBytes(seed: number, length: number, alphabet: number): Uint8Array {
  const random = mulberry32(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = 0x20 + Math.floor(random() * alphabet);
  return out;
}

const FINAL_EMPTY_BLOCK = Uint8Array.of(0x03, 0x00);
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function inflateRawWithRuntime(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("SegmentCompressor", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9])("level %i: ends in a sync flush and tracks totals", (level) => {
    const data = seededBytes(level, 70_000, 12);
    const { data: segment, rawBytes, compressedBytes, crc } = compressSegment(data, level);
    expect([...segment.subarray(-4)]).toEqual([0x00, 0x00, 0xff, 0xff]);
    expect(rawBytes).toBe(data.length);
    expect(compressedBytes).toBe(segment.length);
    expect(crc).toBe(crc32(data));
    expect(inflateSync(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(data);
  });

  it("closes correctly whatever bits are pending (many small random inputs)", () => {
    const random = mulberry32(11);
    for (let trial = 0; trial < 400; trial++) {
      const data = seededBytes(trial, Math.floor(random() * 3000), 1 + Math.floor(random() * 200));
      const level = 1 + Math.floor(random() * 9);
      const { data: segment } = compressSegment(data, level);
      expect(inflateSync(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(data);
    }
  });

  it("has no final block: alone it is an unfinished stream, 03 00 finishes it", async () => {
    const data = seededBytes(1, 50_000, 30);
    const { data: segment } = compressSegment(data, 6);
    await expect(inflateRawWithRuntime(segment)).rejects.toThrow();
    expect(await inflateRawWithRuntime(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(data);
  });

  it("is self-contained: decodes alone even when its content repeats the previous segment's", async () => {
    const first = seededBytes(2, 40_000, 256);
    const second = concat(first.subarray(0, 20_000), first.subarray(0, 20_000));
    const a = compressSegment(first, 9).data;
    const b = compressSegment(second, 9).data;
    expect(await inflateRawWithRuntime(concat(b, FINAL_EMPTY_BLOCK))).toEqual(second);
    expect(await inflateRawWithRuntime(concat(a, b, FINAL_EMPTY_BLOCK))).toEqual(concat(first, second));
  });

  it("encodes an empty segment as a valid, byte-aligned no-op", () => {
    const { data: segment, rawBytes, crc } = compressSegment(new Uint8Array(0), 6);
    expect(rawBytes).toBe(0);
    expect(crc).toBe(0);
    expect([...segment.subarray(-4)]).toEqual([0x00, 0x00, 0xff, 0xff]);
    expect(inflateSync(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(new Uint8Array(0));
  });

  it("accepts input in arbitrary pieces, including a single push larger than fflate's buffer", () => {
    const data = seededBytes(3, 400_000, 8);
    const random = mulberry32(5);
    const chunks: Uint8Array[] = [];
    const compressor = new SegmentCompressor(6, (chunk) => chunks.push(chunk));
    let at = 0;
    while (at < data.length) {
      const size = random() < 0.2 ? 300_000 : Math.floor(random() * 5000);
      compressor.push(data.subarray(at, at + size));
      at += size;
    }
    const totals = compressor.finish();
    const segment = concat(...chunks);
    expect(totals).toEqual({ rawBytes: data.length, compressedBytes: segment.length, crc: crc32(data) });
    expect(inflateSync(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(data);
  });

  it("refuses use after finish and levels outside 1..9", () => {
    const compressor = new SegmentCompressor(6, () => {});
    compressor.finish();
    expect(() => compressor.push(new Uint8Array(1))).toThrow();
    expect(() => compressor.finish()).toThrow();
    for (const level of [0, 10, 2.5, Number.NaN]) {
      expect(() => new SegmentCompressor(level, () => {})).toThrow(RangeError);
    }
  });
});

describe("segmentCompressorStream", () => {
  it("emits the segment's bytes and resolves its totals when the input ends", async () => {
    const data = seededBytes(4, 200_000, 20);
    const pair = segmentCompressorStream(6);
    const input = new Blob([data]).stream();
    const segment = new Uint8Array(await new Response(input.pipeThrough(pair)).arrayBuffer());
    const totals = await pair.totals;
    expect(totals).toEqual({ rawBytes: data.length, compressedBytes: segment.length, crc: crc32(data) });
    expect([...segment.subarray(-4)]).toEqual([0x00, 0x00, 0xff, 0xff]);
    expect(await inflateRawWithRuntime(concat(segment, FINAL_EMPTY_BLOCK))).toEqual(data);
  });
});
