// The client's incremental SHA-256 against Node's OpenSSL one: every padding boundary, any
// split of the input into chunks.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Sha256 } from "../../src/client/sha256.ts";

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed || 1;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const reference = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("Sha256", () => {
  it("matches FIPS 180-4 vectors", () => {
    expect(hex(new Sha256().digest())).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hex(new Sha256().update(new TextEncoder().encode("abc")).digest())).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it.each([1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 65_537])("matches node:crypto for %i bytes in uneven chunks", (length) => {
    const data = bytes(length, length);
    for (const step of [1, 7, 64, 100, length]) {
      const hash = new Sha256();
      for (let at = 0; at < length; at += step) hash.update(data.subarray(at, at + step));
      expect(hex(hash.digest())).toBe(reference(data));
    }
  });

  it("refuses to be used after digest", () => {
    const hash = new Sha256();
    hash.digest();
    expect(() => hash.update(new Uint8Array(1))).toThrow();
  });
});
