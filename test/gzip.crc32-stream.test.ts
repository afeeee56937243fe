// Crc32Stream, the native CRC-32 the parted ingest checks a gzip trailer with: the same value as
// crc32.ts for any split of the same bytes, and in workerd it is the native digest, not the fallback.
import { describe, expect, it } from "vitest";
import { crc32 } from "../src/wire/crc32.ts";
import { Crc32Stream } from "../src/wire/crc32-stream.ts";
import { mulberry32 } from "./helpers/random.ts";

function randomBytes(random: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(random() * 256);
  return out;
}

describe("Crc32Stream", () => {
  it("workerd's DigestStream computes CRC-32 natively (else the stream falls back to JS)", async () => {
    const digest = new crypto.DigestStream("crc32");
    const writer = digest.getWriter();
    await writer.write(new TextEncoder().encode("123456789"));
    await writer.close();
    expect(new DataView(await digest.digest).getUint32(0, false)).toBe(0xcbf43926);
  });

  it("gives no bytes the CRC 0", async () => {
    expect(await new Crc32Stream().value()).toBe(0);
  });

  it("equals crc32() over the concatenation, at random splits and with empty buffers", async () => {
    const random = mulberry32(1952);
    for (let round = 0; round < 20; round++) {
      const bytes = randomBytes(random, Math.floor(random() * 300_000));
      const stream = new Crc32Stream();
      let at = 0;
      while (at < bytes.length) {
        const take = random() < 0.1 ? 0 : Math.floor(random() * 70_000);
        stream.update(bytes.subarray(at, at + take));
        at += take;
      }
      expect(await stream.value()).toBe(crc32(bytes));
    }
  });
});
