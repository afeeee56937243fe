// The column statistics' CPU time in workerd, and between checkouts (docs/statistics.md#cost):
// where scripts/bench-statistics-encoder.ts measures the encoder in Node, whose V8 inlines and
// boxes differently, this serves each checkout's bench worker (BENCH_STATISTICS_ROOTS, a comma
// list of checkouts; default this tree) with a 25 MiB version of `npm run bench:twin`'s CSV, one
// segment, and encodes that segment as the build does (POST /__bench/parquet), with the statistics
// and without, in alternated rounds across the servers. Each encoding's cost is its workerd's CPU
// time (/proc, 10 ms ticks); the statistics' cost is the rounds' median of on − off and the mean of
// the lower halves' difference. BENCH_STATISTICS_PROFILE=FILE instead records 10 encodings each
// way of the first checkout with V8's CPU profiler (FILE-on.cpuprofile, FILE-off.cpuprofile), and
// BENCH_STATISTICS_HEAP=FILE their sampled allocations (.heapprofile), where a heap number per value
// shows. Not part of `npm run bench`. Run: `npx node scripts/bench-statistics-workerd.ts`
// (BENCH_STATISTICS_ROUNDS, default 30; BENCH_PORTS as for the bench).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PubsetClient } from "../src/client/index.ts";
import { withCpu } from "./bench/cpu.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, median, MIB, runBenchPart } from "./bench/stats.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

interface Served {
  root: string;
  server: RunningServer;
  dataset: string;
  version: string;
  on: number[];
  off: number[];
  differences: number[];
}

const ROUNDS = Number(process.env.BENCH_STATISTICS_ROUNDS ?? 30);
/** The DevTools calls' timeout: a profile of 20 encodings comes back in seconds. */
const CALL_TIMEOUT_MS = 120_000;

/** Serves `root`'s bench worker from its own state, with a 25 MiB version whose twin is built. */
async function serve(root: string, work: string, csvPath: string): Promise<Served> {
  const { buildWorker } = (await import(join(root, "scripts", "bench", "worker-build.ts"))) as typeof import("./bench/worker-build.ts");
  const dir = mkdtempSync(join(work, "checkout-"));
  const key = await prepareState(join(dir, "state"));
  const server = await startServer(await buildWorker(join(dir, "app")), join(dir, "state"), await freePort(), join(dir, "wrangler.log"));
  const client = new PubsetClient({ url: server.origin, key, resumableThreshold: 0, retry: { baseDelayMs: 50 } });
  const created = await client.create({ name: "bench statistics", visibility: "public" }, { path: csvPath }, { fileName: "orders.csv" });
  const parquet = `${server.origin}/v1/dataset/${created.id}/${created.version}/orders.parquet`;
  for (let tries = 0; (await fetch(parquet, { method: "HEAD" })).status !== 200; tries++) {
    if (tries > 600) throw new Error(`${root}: the twin was not ready in 5 minutes`);
    await new Promise((done) => setTimeout(done, 500));
  }
  return { root, server, dataset: created.id, version: created.version, on: [], off: [], differences: [] };
}

/** The workerd CPU seconds of one encoding of the version's first segment. */
async function encoding(served: Served, statistics: "on" | "off"): Promise<number> {
  const { server, dataset, version } = served;
  const { cpu } = await withCpu(server.workerPid(), async () => {
    const response = await fetch(`${server.origin}/__bench/parquet?dataset=${dataset}&version=${version}&statistics=${statistics}&segment=0`, { method: "POST" });
    if (!response.ok) throw new Error(`/__bench/parquet answered ${response.status}: ${await response.text()}`);
    return response.json();
  });
  return cpu;
}

/** A DevTools session with the worker's isolate, through wrangler's inspector proxy. */
async function devtools(port: number): Promise<{ call(method: string, params?: object): Promise<Record<string, unknown>>; close(): void }> {
  const socket = new (WebSocket as unknown as new (url: string, options: object) => WebSocket)(`ws://127.0.0.1:${port}/ws`, { headers: { origin: "http://localhost" } });
  await new Promise((opened, failed) => {
    socket.addEventListener("open", opened);
    socket.addEventListener("error", failed);
  });
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
  });
  let next = 1;
  return {
    call: (method, params) =>
      new Promise((answered, failed) => {
        const id = next++;
        const timer = setTimeout(() => failed(new Error(`${method} got no answer`)), CALL_TIMEOUT_MS);
        pending.set(id, (result) => {
          clearTimeout(timer);
          answered(result);
        });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** Ten encodings each way under the CPU profiler or the sampling heap profiler. */
async function record(served: Served, kind: "cpu" | "heap", file: string): Promise<void> {
  const session = await devtools(served.server.inspectorPort);
  try {
    await session.call(kind === "cpu" ? "Profiler.enable" : "HeapProfiler.enable");
    if (kind === "cpu") await session.call("Profiler.setSamplingInterval", { interval: 200 });
    for (const statistics of ["on", "off"] as const) {
      if (kind === "cpu") await session.call("Profiler.start");
      else await session.call("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      for (let i = 0; i < 10; i++) await encoding(served, statistics);
      const { profile } = await session.call(kind === "cpu" ? "Profiler.stop" : "HeapProfiler.stopSampling");
      const path = `${file}-${statistics}.${kind === "cpu" ? "cpuprofile" : "heapprofile"}`;
      writeFileSync(path, JSON.stringify(profile));
      process.stdout.write(`${path}\n`);
    }
  } finally {
    session.close();
  }
}

async function main(): Promise<number> {
  const roots = (process.env.BENCH_STATISTICS_ROOTS ?? PROJECT_ROOT).split(",").map((root) => resolve(root));
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-statistics-workerd-"));
  const served: Served[] = [];
  try {
    const csv = writeCsvFile(join(work, "orders.csv"), 25 * MIB, 31);
    for (const root of roots) {
      process.stderr.write(`bench statistics workerd: serving ${root}…\n`);
      served.push(await serve(root, work, csv.path));
    }
    // Unmeasured: every path compiled and warm.
    for (const one of served) for (const statistics of ["on", "off", "on", "off"] as const) await encoding(one, statistics);
    const profile = process.env.BENCH_STATISTICS_PROFILE;
    const heap = process.env.BENCH_STATISTICS_HEAP;
    if (profile || heap) {
      if (profile) await record(served[0]!, "cpu", profile);
      if (heap) await record(served[0]!, "heap", heap);
      return 0;
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const one of round % 2 === 0 ? served : [...served].reverse()) {
        const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
        const cpu = { on: 0, off: 0 };
        for (const statistics of order) cpu[statistics] = await encoding(one, statistics);
        one.on.push(cpu.on);
        one.off.push(cpu.off);
        one.differences.push(cpu.on - cpu.off);
      }
    }
    const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;
    const lowerHalf = (values: number[]) => {
      const low = [...values].sort((a, b) => a - b).slice(0, Math.ceil(values.length / 2));
      return low.reduce((sum, value) => sum + value, 0) / low.length;
    };
    console.log(`One 25 MiB segment encoded in workerd, ${ROUNDS} alternated rounds, CPU time (10 ms ticks); ${machineLine()}`);
    console.log("| checkout | off, median (lower half's mean) | on, median (lower half's mean) | statistics: median of on − off | statistics: difference of the lower halves |");
    console.log("|---|---|---|---|---|");
    for (const one of served) {
      console.log(`| ${one.root} | ${ms(median(one.off))} (${ms(lowerHalf(one.off))}) | ${ms(median(one.on))} (${ms(lowerHalf(one.on))}) | ${ms(median(one.differences))} | ${ms(lowerHalf(one.on) - lowerHalf(one.off))} |`);
    }
    return 0;
  } finally {
    for (const one of served) await one.server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench statistics workerd", main);
