// Snappy compression (raw block format) for Parquet pages: the codec every Parquet reader ships.
// The compressor is snappy-kernel.wasm (built from snappy-kernel.as.ts), about 1.5 times as fast
// as the same design in JavaScript was (docs/performance.md, "The Parquet twin in workerd").
// https://github.com/google/snappy/blob/main/format_description.txt
import snappyModule from "./snappy-kernel.wasm";

interface SnappyExports {
  memory: WebAssembly.Memory;
  compress(input: number, length: number, out: number): number;
}

const PAGE = 65_536;
/** The kernel's hash table fills [0, INPUT_AT) (snappy-kernel.as.ts, "Memory"). */
const INPUT_AT = 65_536;
/** Bytes after the output that the kernel's 16-byte literal copies may write. */
const SLACK = 16;

/**
 * One instance per isolate, made on first use. Its memory grows to the largest page compressed
 * and stays: a data page is cut past PAGE_BYTES (64 KiB) plus one value of at most a field's
 * size limit, a dictionary page past 1 MiB plus one entry, so a few MiB at most.
 */
let kernel: SnappyExports | null = null;

/** The largest output snappyCompress can produce for `n` input bytes (the reference's bound). */
function maxCompressedLength(n: number): number {
  return 32 + n + Math.floor(n / 6);
}

/**
 * `input` compressed as one raw Snappy block (its length as a varint, then the elements), in a
 * new array of its exact size. Across the boundary: `input` is copied to INPUT_AT, the kernel
 * writes the block at the next 16-byte boundary after it and returns its length.
 */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const k = (kernel ??= new WebAssembly.Instance(snappyModule, {}).exports as unknown as SnappyExports);
  const n = input.length;
  const outAt = INPUT_AT + ((n + SLACK + 15) & ~15);
  const need = outAt + maxCompressedLength(n) + SLACK;
  const have = k.memory.buffer.byteLength;
  if (need > have) k.memory.grow(Math.ceil((need - have) / PAGE));
  const memory = new Uint8Array(k.memory.buffer);
  memory.set(input, INPUT_AT);
  const written = k.compress(INPUT_AT, n, outAt);
  return memory.slice(outAt, outAt + written);
}
