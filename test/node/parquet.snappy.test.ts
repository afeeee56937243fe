// The Snappy compressor (src/columnar/parquet/snappy.ts) against an independent decompressor
// (hyparquet's): random, repetitive, mixed and empty inputs, sizes around the 64 KiB fragment.
import { snappyUncompress } from "hyparquet";
import { describe, expect, it } from "vitest";
import { snappyCompress } from "../../src/columnar/parquet/index.ts";
import { random } from "./helpers/random-table.ts";

function roundTrip(input: Uint8Array): number {
  const compressed = snappyCompress(input);
  const output = new Uint8Array(input.length);
  snappyUncompress(compressed, output);
  expect(Buffer.from(output).equals(Buffer.from(input))).toBe(true);
  return compressed.length;
}

const SIZES = [0, 1, 4, 15, 16, 17, 100, 4096, 65_535, 65_536, 65_537, 200_000, 1_000_003];

describe("Snappy compressor", () => {
  it.each(SIZES)("round-trips %i random bytes, growing them by at most the format's bound", (n) => {
    const rnd = random(n + 1);
    const input = Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
    expect(roundTrip(input)).toBeLessThanOrEqual(32 + n + Math.floor(n / 6));
  });

  it.each(SIZES)("round-trips and shrinks %i repetitive bytes", (n) => {
    const input = Uint8Array.from({ length: n }, (_, i) => "abcabcabd"[i % 9]!.charCodeAt(0));
    const size = roundTrip(input);
    if (n >= 4096) expect(size).toBeLessThan(n / 10);
  });

  it.each(SIZES)("round-trips %i bytes of long runs, random stretches and far repeats", (n) => {
    const rnd = random(n + 3);
    const input = new Uint8Array(n);
    for (let i = 0; i < n; i++) input[i] = i % 3000 < 1000 ? 7 : i % 3000 < 2000 ? Math.floor(rnd() * 4) : input[i - 2000]!;
    roundTrip(input);
  });

  it("round-trips CSV-like text to less than half its size", () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `${i},label-${i % 13},${(i * 7919) % 1000}.25,2024-01-${String(1 + (i % 28)).padStart(2, "0")}`).join("\n");
    const input = new TextEncoder().encode(text);
    expect(roundTrip(input)).toBeLessThan(input.length / 2);
  });
});
