// SegmentUpload (src/storage/segment-store.ts) on the local R2: an object of several multipart
// parts reads back byte for byte whatever the sizes of the writes, while the upload holds two
// part buffers at most, the one filling and the one in flight, reused from part to part.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PART_SIZE, SegmentUpload } from "../src/storage/segment-store.ts";
import { mulberry32 } from "./helpers/random.ts";

/** Seeded bytes: a part written over before R2 took it would read back as another part's bytes. */
function seededBytes(length: number, seed: number): Uint8Array {
  const random = mulberry32(seed);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

describe("SegmentUpload", { timeout: 60_000 }, () => {
  it("writes four and a half parts exactly, holding two part buffers at most", async () => {
    const expected = seededBytes(4 * PART_SIZE + PART_SIZE / 2, 11);
    const upload = new SegmentUpload(env.CONTENT, `test/segment-upload/${crypto.randomUUID()}`);
    expect(upload.bufferBytes).toBe(PART_SIZE);
    const random = mulberry32(5);
    let held = 0;
    for (let offset = 0; offset < expected.length; ) {
      // Writes of 1 B to 1 MiB, so part boundaries fall inside writes.
      const length = Math.min(expected.length - offset, 1 + Math.floor(random() * (1 << 20)));
      await upload.write(expected.subarray(offset, offset + length));
      offset += length;
      held = Math.max(held, upload.bufferBytes);
    }
    expect(held).toBe(2 * PART_SIZE);
    expect(await upload.finish()).toBe(expected.length);
    const object = await env.CONTENT.get(upload.key);
    expect(object).not.toBeNull();
    const actual = new Uint8Array(await object!.arrayBuffer());
    expect(actual.length).toBe(expected.length);
    expect(actual.findIndex((byte, i) => byte !== expected[i])).toBe(-1);
    await env.CONTENT.delete(upload.key);
  });

  it("an object smaller than a part is one put from one buffer", async () => {
    const expected = seededBytes(1000, 3);
    const upload = new SegmentUpload(env.CONTENT, `test/segment-upload/${crypto.randomUUID()}`);
    await upload.write(expected);
    expect(await upload.finish()).toBe(1000);
    expect(upload.bufferBytes).toBe(PART_SIZE);
    const object = await env.CONTENT.get(upload.key);
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(expected);
    await env.CONTENT.delete(upload.key);
  });
});
