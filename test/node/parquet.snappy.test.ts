// The Snappy compressor (src/columnar/parquet/snappy.ts, the kernel snappy-kernel.wasm) against an
// independent decompressor (hyparquet's): random, repetitive, mixed and empty inputs, sizes around
// the 64 KiB fragment; and byte for byte against the JavaScript compressor it replaced, on sampled
// random inputs shaped like Parquet pages.
import { snappyUncompress } from "hyparquet";
import { describe, expect, it } from "vitest";
import { snappyCompress } from "../../src/columnar/parquet/index.ts";
import { random } from "./helpers/random-table.ts";
import { referenceSnappyCompress } from "./helpers/snappy-reference.ts";

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

  it("writes the same bytes as the JavaScript compressor it replaced, on 300 sampled page-like inputs", () => {
    const rnd = random(23);
    const words = ["paid", "shipped", "São Paulo", "東京", "2024-01-0", "\u0000\u0000\u0000", "😀", "a", ",", '""'];
    for (let sample = 0; sample < 300; sample++) {
      // Sizes: mostly under a page, some across the 64 KiB fragment, a few tiny.
      const n = rnd() < 0.1 ? Math.floor(rnd() * 20) : Math.floor(rnd() * (rnd() < 0.2 ? 200_000 : 70_000));
      const input = new Uint8Array(n);
      const mode = sample % 4;
      let i = 0;
      while (i < n) {
        if (mode === 0) input[i++] = Math.floor(rnd() * 256);
        else if (mode === 1 && i > 8 && rnd() < 0.5) {
          // A repeat of earlier bytes at a random distance and length (copies of every size and offset).
          const from = Math.floor(rnd() * i);
          const length = Math.min(n - i, 1 + Math.floor(rnd() * (rnd() < 0.1 ? 300 : 20)));
          for (let k = 0; k < length; k++, i++) input[i] = input[from + k]!;
        } else {
          const bytes = new TextEncoder().encode(words[Math.floor(rnd() * words.length)]!);
          for (let k = 0; k < bytes.length && i < n; k++) input[i++] = mode === 3 ? bytes[k]! ^ (rnd() < 0.05 ? 1 : 0) : bytes[k]!;
        }
      }
      const ours = snappyCompress(input);
      const reference = referenceSnappyCompress(input);
      if (!Buffer.from(ours).equals(Buffer.from(reference))) expect.fail(`sample ${sample} (${n} bytes, mode ${mode}): ${ours.length} bytes against ${reference.length}`);
    }
  });
});
