// SegmentUpload (src/storage/segment-store.ts) on the local R2: an object of several multipart
// parts reads back byte for byte whatever the sizes of the writes, while the upload holds one
// part buffer, reused from part to part, and what is written while it is in flight: at most a
// part's worth, past which a write waits for R2.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PART_SIZE, SegmentUpload } from "../src/storage/segment-store.ts";
import { mulberry32 } from "./helpers/random.ts";
import { wrapBinding } from "./helpers/storage.ts";

/** The local R2, whose multipart parts wait for `open()` before they go. */
function gatedParts(): { bucket: R2Bucket; open: () => void; sent: () => number } {
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let sent = 0;
  const bucket = wrapBinding(env.CONTENT, {
    createMultipartUpload: async (key: string, options?: R2MultipartOptions) => {
      const real = await env.CONTENT.createMultipartUpload(key, options);
      return wrapBinding(real, {
        uploadPart: async (part: number, value: Uint8Array) => {
          await gate;
          sent++;
          return real.uploadPart(part, value);
        },
      });
    },
  });
  return { bucket, open: () => open(), sent: () => sent };
}

/** Seeded bytes: a part written over before R2 took it would read back as another part's bytes. */
function seededBytes(length: number, seed: number): Uint8Array {
  const random = mulberry32(seed);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

describe("SegmentUpload", { timeout: 60_000 }, () => {
  it("writes four and a half parts exactly, holding one part buffer and at most a part's worth besides", async () => {
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
    expect(held).toBeGreaterThanOrEqual(PART_SIZE);
    expect(held).toBeLessThanOrEqual(2 * PART_SIZE);
    expect(await upload.finish()).toBe(expected.length);
    const object = await env.CONTENT.get(upload.key);
    expect(object).not.toBeNull();
    const actual = new Uint8Array(await object!.arrayBuffer());
    expect(actual.length).toBe(expected.length);
    expect(actual.findIndex((byte, i) => byte !== expected[i])).toBe(-1);
    await env.CONTENT.delete(upload.key);
  });

  it("keeps what is written while a part is in flight, and waits for R2 past a part's worth", async () => {
    const expected = seededBytes(3 * PART_SIZE + 12345, 17);
    const gated = gatedParts();
    const upload = new SegmentUpload(gated.bucket, `test/segment-upload/${crypto.randomUUID()}`);
    // The first part fills and goes to R2, which holds it.
    await upload.write(expected.subarray(0, PART_SIZE));
    expect(upload.bufferBytes).toBe(PART_SIZE);
    // Written meanwhile: kept beside the buffer, the write answered at once.
    await upload.write(expected.subarray(PART_SIZE, PART_SIZE + (1 << 20)));
    expect(upload.bufferBytes).toBe(PART_SIZE + (1 << 20));
    // Past a part's worth the write waits for R2.
    let answered = false;
    const waiting = upload.write(expected.subarray(PART_SIZE + (1 << 20), 3 * PART_SIZE)).then(() => (answered = true));
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answered).toBe(false);
    expect(upload.bufferBytes).toBe(2 * PART_SIZE);
    expect(gated.sent()).toBe(0);
    gated.open();
    await waiting;
    expect(upload.bufferBytes).toBeLessThanOrEqual(2 * PART_SIZE);
    await upload.write(expected.subarray(3 * PART_SIZE));
    expect(await upload.finish()).toBe(expected.length);
    expect(gated.sent()).toBe(4);
    const object = await env.CONTENT.get(upload.key);
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
