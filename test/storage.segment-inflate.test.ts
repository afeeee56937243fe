// Reading a stored segment back (src/storage/segment-inflate.ts). inflateSegment: the body piped
// into the platform's inflate, its failures and the inflate's reaching the reader. inflateParts:
// part by part, the same bytes as the whole segment inflated at once, in views of the gathered
// size, holding at most one group of parts ahead of its reader, and refusing an object or a part
// that disagrees with its part list.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INFLATE_GROUP_BYTES, inflateParts, inflateSegment } from "../src/storage/segment-inflate.ts";
import { concatBytes } from "../src/wire/deflate-segment.ts";
import { mulberry32, randomInt, type Random } from "./helpers/random.ts";
import { partedSegment as segment, readAheadBound, served } from "./helpers/served-segment.ts";

/** Bytes that compress a little, as CSV does: random runs of a few random words. */
function content(random: Random, length: number): Uint8Array {
  const words = Array.from({ length: 50 }, () => Uint8Array.from({ length: randomInt(random, 1, 12) }, () => randomInt(random, 0, 255)));
  const bytes = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const word = words[randomInt(random, 0, words.length - 1)]!;
    bytes.set(word.subarray(0, length - at), at);
    at += word.length;
  }
  return bytes;
}

async function readAll(views: AsyncGenerator<Uint8Array>): Promise<{ bytes: Uint8Array; lengths: number[] }> {
  const out: Uint8Array[] = [];
  for await (const view of views) out.push(view.slice());
  return { bytes: concatBytes(out), lengths: out.map((v) => v.length) };
}

async function drained(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatBytes(out);
    out.push(value);
  }
}

describe("inflateSegment", () => {
  it("inflates a stored segment from R2 and from a stream of any chunks", async () => {
    const raw = content(mulberry32(3), 500_000);
    const { bytes } = segment(raw, [123_456, 300_000]);
    const key = `test/segment-inflate/${crypto.randomUUID()}`;
    await env.CONTENT.put(key, bytes);
    expect(await drained(inflateSegment((await env.CONTENT.get(key))!.body))).toEqual(raw);
    expect(await drained(inflateSegment(served(bytes, 999, true).stream))).toEqual(raw);
  });

  it("fails its reader when the body fails or is not DEFLATE, and stops when the reader cancels", async () => {
    const raw = content(mulberry32(4), 300_000);
    const { bytes } = segment(raw, []);
    let sent = false;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("connection lost"));
        controller.enqueue(bytes.slice(0, 5000));
        sent = true;
      },
    });
    await expect(drained(inflateSegment(failing))).rejects.toThrow("connection lost");
    await expect(drained(inflateSegment(served(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 2, true).stream))).rejects.toThrow();
    // A reader that stops early: the body is cancelled, not read to its end.
    const long = segment(content(mulberry32(5), 3_000_000), []).bytes;
    const source = served(long, 1024, true);
    const reader = inflateSegment(source.stream).getReader();
    expect((await reader.read()).value!.length).toBeGreaterThan(0);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.cancelled()).toBe(true);
    expect(source.pulled()).toBeLessThan(long.length);
  });
});

describe("inflateParts", () => {
  it("gives the segment's bytes in views of the gathered size, whatever its parts and its body's chunks", async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const random = mulberry32(seed);
      const raw = content(random, randomInt(random, 1, 3 * INFLATE_GROUP_BYTES));
      // Parts of every size: tiny ones (joined into groups), and some larger than a group.
      const cuts: number[] = [];
      for (let at = randomInt(random, 1, 200_000); at < raw.length; at += randomInt(random, 1, seed % 2 === 0 ? 40_000 : 1_500_000)) cuts.push(at);
      const { bytes, parts } = segment(raw, cuts);
      const gather = randomInt(random, 1, 300_000);
      const got = await readAll(inflateParts(served(bytes, randomInt(random, 1, 100_000), seed % 3 === 0).stream, parts, gather));
      expect(got.bytes.length, `seed ${seed}`).toBe(raw.length);
      expect(got.bytes.every((b, i) => b === raw[i]), `seed ${seed}`).toBe(true);
      expect(got.lengths.slice(0, -1).every((n) => n === gather)).toBe(true);
    }
  });

  it("reads from R2 no further than the group its reader has reached", async () => {
    const random = mulberry32(42);
    const raw = content(random, 6 * INFLATE_GROUP_BYTES);
    const cuts = Array.from({ length: 23 }, (_, i) => (i + 1) * 262_144 + randomInt(random, -1000, 1000));
    const { bytes, parts } = segment(raw, cuts);
    const source = served(bytes, 65_536);
    // What the reader may be ahead by: the group it is in, at most INFLATE_GROUP_BYTES of whole parts.
    const allowed = readAheadBound(parts);
    let taken = 0;
    let views = 0;
    for await (const view of inflateParts(source.stream, parts, 100_000)) {
      taken += view.length;
      views++;
      expect(source.pulled(), `after ${taken} bytes`).toBeLessThanOrEqual(allowed(taken));
      // A slow reader: the platform's inflate would run ahead of it if it were fed the object as it streams.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(taken).toBe(raw.length);
    expect(views).toBe(Math.ceil(raw.length / 100_000));
  });

  it("refuses an object shorter than its parts, and a part that inflates to other than its raw bytes", async () => {
    const raw = content(mulberry32(7), 300_000);
    const { bytes, parts } = segment(raw, [100_000, 200_000]);
    for (const plain of [false, true]) await expect(readAll(inflateParts(served(bytes.subarray(0, bytes.length - 10), 4096, plain).stream, parts, 65_536))).rejects.toThrow(/shorter/);
    const longer = parts.map((p, i) => (i === 1 ? { ...p, rawBytes: p.rawBytes + 1 } : p));
    await expect(readAll(inflateParts(served(bytes, 4096).stream, longer, 65_536))).rejects.toThrow(/inflates to/);
    const shorter = parts.map((p, i) => (i === 2 ? { ...p, rawBytes: p.rawBytes - 1 } : p));
    await expect(readAll(inflateParts(served(bytes, 4096).stream, shorter, 65_536))).rejects.toThrow(/inflates to/);
    const corrupt = bytes.slice();
    const at = parts[1]!.compressedOffset + 100;
    corrupt.set(corrupt.subarray(at, at + 50).map((b) => b ^ 0x5a), at);
    await expect(readAll(inflateParts(served(corrupt, 4096).stream, parts, 65_536))).rejects.toThrow();
    const gap = parts.map((p, i) => (i === 2 ? { ...p, compressedOffset: p.compressedOffset + 1 } : p));
    await expect(readAll(inflateParts(served(bytes, 4096).stream, gap, 65_536))).rejects.toThrow(/segment part at/);
  });
});
