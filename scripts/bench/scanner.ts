// The CSV validator's own speed (src/csv/scanner.ts), in Node over one of the bench CSVs fed in
// 64 KiB chunks as ingest feeds it: a collapse here (per-byte allocation, quadratic buffering)
// shows before it hides inside the end-to-end ingest figures.
import { readFileSync } from "node:fs";
import { CsvScanner } from "../../src/csv/scanner.ts";
import { median, MIB } from "./stats.ts";

const CHUNK = 64 * 1024;
const LIMITS = { maxColumns: 1000, maxFieldBytes: MIB, maxHeaderBytes: 64 * 1024 };

export interface ScannerResult {
  bytes: number;
  /** Median over the runs. */
  seconds: number;
  runs: number;
}

function scanOnce(bytes: Uint8Array): number {
  const started = performance.now();
  const scanner = new CsvScanner({ kind: "table" }, LIMITS);
  let passed = 0;
  for (let at = 0; at < bytes.length; at += CHUNK) passed += scanner.push(bytes.subarray(at, at + CHUNK)).length;
  passed += scanner.finish().length;
  const seconds = (performance.now() - started) / 1000;
  if (passed !== bytes.length) throw new Error(`the scanner passed on ${passed} of ${bytes.length} bytes`);
  return seconds;
}

/** One untimed pass warms the JIT up; then the median of `runs` timed passes. */
export function measureScanner(path: string, runs = 5): ScannerResult {
  const bytes = new Uint8Array(readFileSync(path));
  scanOnce(bytes);
  const samples = Array.from({ length: runs }, () => scanOnce(bytes));
  return { bytes: bytes.length, seconds: median(samples), runs };
}
