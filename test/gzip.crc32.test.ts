// CRC-32 (RFC 1952 §8): known vectors, the slicing-by-8 path against a bit-at-a-time
// reference, and crc32Combine against the CRC of the concatenation.
import { describe, expect, it } from "vitest";
import { crc32, crc32Combine, crc32Update } from "../src/wire/crc32.ts";
import { mulberry32 } from "./helpers/random.ts";

function randomBytes(random: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(random() * 256);
  return out;
}

/** RFC 1952 §8 sample code, one bit at a time. */
function referenceCrc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

const ascii = (text: string) => new TextEncoder().encode(text);

describe("crc32Update", () => {
  it.each([
    ["", 0x00000000],
    ["a", 0xe8b7be43],
    ["123456789", 0xcbf43926],
    ["The quick brown fox jumps over the lazy dog", 0x414fa339],
  ])("crc32(%j) matches the published check value", (text, expected) => {
    expect(crc32(ascii(text))).toBe(expected);
  });

  it("returns unsigned values and matches the bit-wise reference at every length and offset", () => {
    const random = mulberry32(1);
    const buffer = randomBytes(random, 300);
    for (let length = 0; length < 100; length++) {
      const offset = Math.floor(random() * 50);
      const view = buffer.subarray(offset, offset + length);
      const value = crc32(view);
      expect(value).toBe(referenceCrc(view));
      expect(value).toBeGreaterThanOrEqual(0);
    }
    expect(crc32(new Uint8Array(64).fill(0xff))).toBe(referenceCrc(new Uint8Array(64).fill(0xff)));
  });

  it("streams: update(update(0, a), b) equals crc(a ‖ b) for random splits", () => {
    const random = mulberry32(2);
    const bytes = randomBytes(random, 5000);
    for (let trial = 0; trial < 50; trial++) {
      const cut = Math.floor(random() * bytes.length);
      expect(crc32Update(crc32Update(0, bytes.subarray(0, cut)), bytes.subarray(cut))).toBe(crc32(bytes));
    }
  });
});

describe("crc32Combine", () => {
  it("equals the CRC of the concatenation across random splits", () => {
    const random = mulberry32(3);
    for (let trial = 0; trial < 200; trial++) {
      const bytes = randomBytes(random, Math.floor(random() * 3000));
      const cut = Math.floor(random() * (bytes.length + 1));
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(bytes));
    }
  });

  it("folds many pieces left to right, as a chain of appends does", () => {
    const random = mulberry32(4);
    const bytes = randomBytes(random, 20000);
    let running = 0;
    let at = 0;
    while (at < bytes.length) {
      const piece = bytes.subarray(at, at + 1 + Math.floor(random() * 2000));
      running = crc32Combine(running, crc32(piece), piece.length);
      at += piece.length;
    }
    expect(running).toBe(crc32(bytes));
  });

  it("leaves crcA unchanged when B is empty", () => {
    expect(crc32Combine(0xcbf43926, 0, 0)).toBe(0xcbf43926);
  });

  it("is consistent for lengths past 2^32 (doubling runs of zero bytes)", () => {
    const mib = 1 << 20;
    const zerosMib = crc32(new Uint8Array(mib));
    expect(crc32Combine(zerosMib, zerosMib, mib)).toBe(crc32(new Uint8Array(2 * mib)));

    // crc(2^n zero bytes) by doubling from 1 MiB up to 2^34 bytes.
    const zeros = new Map<number, number>([[20, zerosMib]]);
    for (let n = 21; n <= 34; n++) {
      const half = zeros.get(n - 1) ?? 0;
      zeros.set(n, crc32Combine(half, half, 2 ** (n - 1)));
    }
    const head = crc32(ascii("header\n"));
    const z32 = zeros.get(32) ?? 0;
    const z33 = zeros.get(33) ?? 0;
    const z34 = zeros.get(34) ?? 0;
    const twoSteps = crc32Combine(crc32Combine(head, z32, 2 ** 32), z32, 2 ** 32);
    expect(crc32Combine(head, z33, 2 ** 33)).toBe(twoSteps);
    expect(crc32Combine(head, z34, 2 ** 34)).toBe(crc32Combine(crc32Combine(head, z33, 2 ** 33), z33, 2 ** 33));
    // Lengths that are not powers of two and exceed 2^32.
    const odd = 2 ** 32 + 2 ** 20;
    const zOdd = crc32Combine(z32, zerosMib, mib);
    expect(crc32Combine(head, zOdd, odd)).toBe(crc32Combine(crc32Combine(head, z32, 2 ** 32), zerosMib, mib));
  });

  it("rejects lengths that are negative, fractional or unsafe", () => {
    expect(() => crc32Combine(0, 0, -1)).toThrow(RangeError);
    expect(() => crc32Combine(0, 0, 1.5)).toThrow(RangeError);
    expect(() => crc32Combine(0, 0, 2 ** 53)).toThrow(RangeError);
  });
});
