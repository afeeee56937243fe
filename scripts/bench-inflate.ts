// `npm run bench:inflate`: what reading one stored segment back costs the Parquet
// build in workerd (docs/performance.md, "The Parquet twin in workerd"), each way of reading it
// (src/bench/inflate.ts) alternated in one wrangler dev, timed by the worker's workerd CPU time
// (utime + stime from /proc: workerd's clock moves only at I/O), next to zlib's inflateRawSync of
// the same bytes in Node. BENCH_INFLATE_MIB (25: a 100 MiB create's segment), BENCH_INFLATE_ROUNDS
// (5), BENCH_INFLATE_WAYS (a comma list of way:size:slice:cells[:pause ms], see DEFAULT_WAYS), BENCH_PORTS.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { crc32 } from "../src/wire/crc32.ts";
import { compressSegment, concatBytes } from "../src/wire/deflate-segment.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, MIB } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";

const KIB = 1024;
/** The client's part size and level (src/client/gzip-stream.ts), so the segment is a stored one's like. */
const PART = 1 << 20;
const LEVEL = 3;
const DEFAULT_WAYS = ["r2:262144:0:off", "stream:262144:0:off", "parts:262144:0:off", "stream:262144:0:on", "parts:262144:0:on", "stream-default:262144:0:off", "pipe:262144:0:off", "slices:262144:1048576:off", "whole:262144:0:off"];

interface Way {
  name: string;
  query: string;
}

function parseWay(text: string): Way {
  const [way, size, slice, cells, pause] = text.split(":");
  return { name: text, query: `way=${way}&size=${size ?? 262144}&slice=${Number(slice) || 1048576}&cells=${cells ?? "off"}&pause=${Number(pause) || 0}` };
}

/** The workerd's CPU seconds so far, all threads (proc(5): utime and stime, fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Segment bytes as the client makes them: parts of PART raw bytes, each its own sync-flushed DEFLATE. */
function segmentOf(raw: Uint8Array): { segment: Uint8Array; parts: string } {
  const parts: Uint8Array[] = [];
  const sizes: string[] = [];
  for (let at = 0; at < raw.length; at += PART) {
    const part = compressSegment(raw.subarray(at, at + PART), LEVEL);
    parts.push(part.data);
    sizes.push(`${part.compressedBytes}:${part.rawBytes}`);
  }
  return { segment: concatBytes(parts), parts: sizes.join(",") };
}

function nodeInflate(segment: Uint8Array, rounds: number): { cpu: number; wall: number; bytes: number } {
  const closed = concatBytes([segment, Uint8Array.of(0x03, 0x00)]);
  let cpu = Infinity;
  let wall = Infinity;
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    const before = process.cpuUsage();
    const started = performance.now();
    bytes = inflateRawSync(closed).length;
    wall = Math.min(wall, (performance.now() - started) / 1000);
    const used = process.cpuUsage(before);
    cpu = Math.min(cpu, (used.user + used.system) / 1e6);
  }
  return { cpu, wall, bytes };
}

async function main(): Promise<number> {
  const mebibytes = Number(process.env.BENCH_INFLATE_MIB ?? "25");
  const rounds = Number(process.env.BENCH_INFLATE_ROUNDS ?? "5");
  const ways = (process.env.BENCH_INFLATE_WAYS?.split(",") ?? DEFAULT_WAYS).map(parseWay);
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-inflate-"));
  let server: RunningServer | null = null;
  try {
    const csv = writeCsvFile(join(work, "orders.csv"), mebibytes * MIB, 31);
    const raw = new Uint8Array(readFileSync(csv.path));
    const { segment, parts } = segmentOf(raw);
    const crc = crc32(raw);
    const node = nodeInflate(segment, rounds * 2);
    if (node.bytes !== raw.length) throw new Error(`Node inflated ${node.bytes} bytes, not ${raw.length}`);
    const stateDir = join(work, "state");
    await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    server = await startServer(build, stateDir, await freePort(), join(work, "wrangler.log"));
    const stored = (await (await fetch(`${server.origin}/__bench/segment`, { method: "PUT", body: Buffer.from(segment) })).json()) as { key: string };
    const pid = server.workerPid();
    const results = new Map<string, Array<{ cpu: number; wall: number; reads: number; smallest: number; largest: number; ahead: number }>>();
    // One round first, not counted: the isolate's compilation and R2's first reads.
    for (const round of [-1, ...Array.from({ length: rounds }, (_, i) => i)]) {
      for (const way of round % 2 === 0 ? ways : [...ways].reverse()) {
        const cpuBefore = cpuSeconds(pid);
        const started = performance.now();
        const response = await fetch(`${server.origin}/__bench/inflate?key=${encodeURIComponent(stored.key)}&${way.query}&parts=${parts}&crc=${crc}`, { method: "POST" });
        const answer = (await response.json()) as { bytes: number; reads: number; smallestRead: number; largestRead: number; records: number; aheadBytes: number };
        const wall = (performance.now() - started) / 1000;
        const cpu = cpuSeconds(pid) - cpuBefore;
        if (!response.ok) throw new Error(`${way.name}: ${response.status} ${JSON.stringify(answer)}`);
        const expected = way.name.startsWith("r2") ? segment.length : raw.length;
        if (answer.bytes !== expected) throw new Error(`${way.name}: ${answer.bytes} bytes, not ${expected}`);
        if (way.query.includes("cells=on") && answer.records !== csv.rows + 1) throw new Error(`${way.name}: ${answer.records} records, not ${csv.rows + 1}`);
        if (round < 0) continue;
        const list = results.get(way.name) ?? [];
        list.push({ cpu, wall, reads: answer.reads, smallest: answer.smallestRead, largest: answer.largestRead, ahead: answer.aheadBytes });
        results.set(way.name, list);
      }
    }
    const lines = [
      `bench inflate: ${(raw.length / MIB).toFixed(1)} MiB of CSV, a ${(segment.length / MIB).toFixed(2)} MiB segment (level ${LEVEL}, parts of ${PART / KIB} KiB); ${rounds} alternated rounds; ${machineLine()}`,
      `Node inflateRawSync, best of ${rounds * 2}: CPU ${(node.cpu * 1000).toFixed(0)} ms, wall ${(node.wall * 1000).toFixed(0)} ms`,
      "| way:size:slice:cells | workerd CPU, ms (median; min–max) | request wall, ms (median) | reads (smallest–largest bytes) | inflated ahead of the reader when R2's bytes ended, MiB (largest) |",
      "|---|---|---|---|---|",
    ];
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    for (const [name, list] of results) {
      const cpus = list.map((r) => r.cpu * 1000);
      const first = list[0]!;
      lines.push(`| ${name} | ${median(cpus).toFixed(0)}; ${Math.min(...cpus).toFixed(0)}–${Math.max(...cpus).toFixed(0)} | ${median(list.map((r) => r.wall * 1000)).toFixed(0)} | ${first.reads} (${first.smallest}–${first.largest}) | ${(Math.max(...list.map((r) => r.ahead)) / MIB).toFixed(1)} |`);
    }
    lines.push(`load average ${loadavg().map((l) => l.toFixed(2)).join(" / ")} at the end`);
    process.stdout.write(lines.join("\n") + "\n");
    return 0;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench inflate: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
