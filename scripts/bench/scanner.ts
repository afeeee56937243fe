// The CSV validator's own speed (src/csv/scanner.ts), in Node over one of the bench CSVs fed in
// 64 KiB chunks as ingest feeds it: a collapse here (per-byte allocation, quadratic buffering)
// shows before it hides inside the end-to-end ingest figures.
import { readFileSync } from "node:fs";
import { CsvScanner } from "../../src/csv/scanner.ts";
import { ColumnTyper } from "../../src/schema/column-typer.ts";
import { median, MIB } from "./stats.ts";

const CHUNK = 64 * 1024;
const LIMITS = { maxColumns: 1000, maxFieldBytes: MIB, maxHeaderBytes: 64 * 1024 };

export interface ScannerResult {
  bytes: number;
  /** Median over the runs. */
  seconds: number;
  runs: number;
}

/** Process CPU seconds (user + system): steadier than wall time on a machine others share. */
function cpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

function scanOnce(bytes: Uint8Array, typed = false): number {
  const started = typed ? cpuSeconds() : performance.now() / 1000;
  const scanner = new CsvScanner({ kind: "table" }, LIMITS, typed ? new ColumnTyper({ kind: "infer", declared: null }) : null);
  let passed = 0;
  for (let at = 0; at < bytes.length; at += CHUNK) passed += scanner.push(bytes.subarray(at, at + CHUNK)).length;
  passed += scanner.finish().length;
  const seconds = (typed ? cpuSeconds() : performance.now() / 1000) - started;
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

/**
 * CPU seconds of the scan alone and of the scan with every column's type inferred (docs/column-types.md),
 * runs alternated, fastest of each: what inference adds to the scan, per byte.
 */
export function measureInferenceCpu(path: string, runs = 5): { bytes: number; plain: number; typed: number } {
  const bytes = new Uint8Array(readFileSync(path));
  const timed = (typed: boolean) => {
    const started = cpuSeconds();
    scanOnce(bytes, typed);
    return cpuSeconds() - started;
  };
  timed(false);
  timed(true);
  const plain: number[] = [];
  const typed: number[] = [];
  for (let run = 0; run < runs; run++) {
    plain.push(timed(false));
    typed.push(timed(true));
  }
  return { bytes: bytes.length, plain: Math.min(...plain), typed: Math.min(...typed) };
}
