// A regression guard for the scanner's hot loop: per-byte allocation or quadratic buffering
// would show up as a collapse in throughput. The bound is far below what it measures
// (hundreds of MiB/s in workerd) so that a busy CI machine does not make it flaky.
import { expect, it } from "vitest";
import { CsvScanner } from "../src/csv/index.ts";

const MIB = 1 << 20;
const FLOOR_MIB_PER_SECOND = 20;

/** About `size` bytes of a table with quoted fields and multi-byte UTF-8, built by repetition. */
function table(size: number): Uint8Array {
  let block = "";
  for (let i = 0; block.length < 64 * 1024; i++) {
    block += `${i},name ${i % 977},"Zürich, ""old""",${(i * 37) % 100000}.25,2026-01-${(i % 28) + 1},日本😀,"two\nlines"\r\n`;
  }
  const header = new TextEncoder().encode("id,name,city,amount,date,note,text\r\n");
  const body = new TextEncoder().encode(block);
  const out = new Uint8Array(header.length + Math.floor(size / body.length) * body.length);
  out.set(header);
  for (let at = header.length; at < out.length; at += body.length) out.set(body, at);
  return out;
}

it(`scans at more than ${FLOOR_MIB_PER_SECOND} MiB/s in 64 KiB chunks`, () => {
  const data = table(16 * MIB);
  const limits = { maxColumns: 1000, maxFieldBytes: MIB, maxHeaderBytes: 64 * 1024 };
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    const scanner = new CsvScanner({ kind: "table" }, limits);
    let passed = 0;
    for (let at = 0; at < data.length; at += 64 * 1024) passed += scanner.push(data.subarray(at, at + 64 * 1024)).length;
    passed += scanner.finish().length;
    best = Math.min(best, performance.now() - started);
    expect(passed).toBe(data.length);
  }
  expect(data.length / MIB / (best / 1000)).toBeGreaterThan(FLOOR_MIB_PER_SECOND);
});
