// The size/speed trade-off behind COMPRESSION_LEVEL, measured in Node with the worker's own
// SegmentCompressor (src/storage/deflate-segment.ts) on one of the bench CSVs.
import { readFileSync } from "node:fs";
import { SegmentCompressor } from "../../src/wire/deflate-segment.ts";
import { median } from "./stats.ts";

export const LEVELS = [1, 3, 6, 9] as const;

export interface LevelResult {
  level: number;
  /** Median over the runs. */
  seconds: number;
  inputBytes: number;
  outputBytes: number;
}

/** Compresses the whole file as one segment, fed in 1 MiB pushes as ingest would be. */
function compressOnce(bytes: Uint8Array, level: number): { seconds: number; outputBytes: number } {
  const started = performance.now();
  const compressor = new SegmentCompressor(level, () => {});
  for (let at = 0; at < bytes.length; at += 1 << 20) compressor.push(bytes.subarray(at, at + (1 << 20)));
  const totals = compressor.finish();
  return { seconds: (performance.now() - started) / 1000, outputBytes: totals.compressedBytes };
}

/**
 * One untimed pass per level warms the JIT up; the timed runs then take turns across levels,
 * so a burst of load from elsewhere on the machine does not land on one level only.
 */
export function measureLevels(path: string, runs = 3): LevelResult[] {
  const bytes = new Uint8Array(readFileSync(path));
  const warmup = bytes.subarray(0, 1 << 20);
  for (const level of LEVELS) compressOnce(warmup, level);
  const samples = LEVELS.map((): number[] => []);
  const sizes = LEVELS.map(() => 0);
  for (let run = 0; run < runs; run++) {
    LEVELS.forEach((level, i) => {
      const result = compressOnce(bytes, level);
      samples[i]?.push(result.seconds);
      sizes[i] = result.outputBytes;
    });
  }
  return LEVELS.map((level, i) => ({ level, seconds: median(samples[i] ?? []), inputBytes: bytes.length, outputBytes: sizes[i] ?? 0 }));
}
