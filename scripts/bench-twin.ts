// `npm run bench` (sixth part; alone: `npm run bench:twin`): the Parquet twin inside workerd, on
// one local `wrangler dev`:
// - the bench's 100 MB mixed-type CSV (BENCH_TWIN_MIB) created as a resumable upload: the time
//   from the create's answer until its `.parquet` answers 200 (readiness), and the build's own log
//   line (`parquet_built`): its wall time, hence MB of CSV per second, next to DuckDB's
//   COPY … (FORMAT parquet) of the same file on one thread (speed) and its Snappy and ZSTD sizes;
// - the statistics' share: the version's segments encoded as the build encodes them
//   (/__bench/parquet), with the statistics fed and without, BENCH_TWIN_ENCODINGS (25, at least 5)
//   rounds in the same workerd, alternated a segment at a time; the least CPU time with them less
//   the least without (the workerd's /proc utime + stime) over the least CPU time of
//   BENCH_TWIN_BUILDS (3) builds of the CSV (created again as new datasets), the rounds' own
//   differences and the wall times beside it;
// - one-row append latency on that dataset and on a 1 MiB one, each with its twin in place;
// - R2 bytes the twin builds write (their log lines' `writtenBytes`, compaction's rebuilds
//   included) per appended byte, over 1,000 one-row appends (BENCH_TWIN_APPENDS; 0 skips them)
//   to a new dataset;
// - the same for BENCH_TWIN_TRICKLE (10) one-row appends 7 s apart to a new 1 MiB dataset, each
//   built as the latest (a trickle);
// - the isolate's live memory (a forced collection, then the heap, over the inspector, answered at
//   the isolate's pauses between tasks) from the answer of a 1 GiB create (BENCH_TWIN_MEMORY_MIB;
//   0 skips it) until its twin is ready.
// BENCH_TWIN_PROFILE=FILE records a CPU profile of the isolate from the 100 MiB create's answer
// until its twin is ready (FILE.cpuprofile, for DevTools) and prints where its time went; the
// profiler slows the isolate, so such a run's figures are not the ones of record. workerd does
// not mark the isolate idle while it waits (on the queue's batch, R2, D1): that time is credited
// to the last frame it ran, often a request's answer (`#newResponse`), not spent in it.
// Goals (docs/performance.md): ≥ 0.5× DuckDB's speed, ≤ 1.2× its Snappy size, ≤ 8 bytes written
// per appended byte, append ratio ≤ 1.2, < 64 MiB live memory, statistics ≤ 10 % of the build.
import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { cpuSeconds, withCpu } from "./bench/cpu.ts";
import { csvRows, HEADER, writeCsvFile } from "./bench/csv-gen.ts";
import { Inspector, profileSummary, sampleLiveHeap, type HeapSummary } from "./bench/heap.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { p50 } from "./bench/storage.ts";
import { errorText, machineLine, MB, median, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
/** Past after-commit.ts's TWIN_STALE_MS (60 s), so a superseded version's message builds the latest. */
const STALE_WAIT_MS = 65_000;

interface Built {
  datasetId: string;
  versionId: string;
  ms: number;
  fileBytes: number;
  parts: number;
  writtenBytes: number;
}

/** Every `parquet_built` line of the server log so far. */
function builtLines(logFile: string): Built[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"event":"parquet_built"'))
    .map((l) => JSON.parse(l.slice(l.indexOf("{"))) as Built);
}

/**
 * How readiness learns that a twin is built without asking the isolate that builds it: the
 * server log is read for the version's `parquet_built` line every LOG_POLL_MS (only the bytes
 * added since the last read), and the file is asked for once that line is there. Each `.parquet`
 * request costs the workerd about 10 ms of CPU, pending or not, the same as a `.gz` HEAD
 * (docs/performance.md, "Where the build's time goes"); polled every 500 ms, 14–18 of them ran during a 7 s build.
 * Without the line (a build that fails, a log that lags) the file is still asked for every
 * Retry-After (PENDING_RETRY_SECONDS, 5 s), as a client does.
 */
const LOG_POLL_MS = 100;
const FALLBACK_POLL_MS = 5_000;

/** The versions whose `parquet_built` line a server log holds so far, read from where it was left. */
const logsRead = new Map<string, { offset: number; rest: string; built: Set<string> }>();

function builtVersions(logFile: string): Set<string> {
  let log = logsRead.get(logFile);
  if (!log) logsRead.set(logFile, (log = { offset: 0, rest: "", built: new Set() }));
  const fd = openSync(logFile, "r");
  try {
    const size = fstatSync(fd).size;
    if (size <= log.offset) return log.built;
    const chunk = Buffer.alloc(size - log.offset);
    readSync(fd, chunk, 0, chunk.length, log.offset);
    log.offset = size;
    const lines = (log.rest + chunk.toString("utf8")).split("\n");
    log.rest = lines.pop() ?? "";
    for (const line of lines) {
      if (line.includes('"event":"parquet_built"')) log.built.add((JSON.parse(line.slice(line.indexOf("{"))) as Built).versionId);
    }
    return log.built;
  } finally {
    closeSync(fd);
  }
}

/**
 * Seconds until `versionId`'s twin at `path` answers 200, read to within LOG_POLL_MS plus one
 * request; `onLogged` runs once when its `parquet_built` line is first seen, before the request.
 */
async function readiness(origin: string, logFile: string, versionId: string, path: string, timeoutMs: number, onLogged?: () => void): Promise<number> {
  const started = performance.now();
  let asked = Number.NEGATIVE_INFINITY;
  let seen = false;
  while (performance.now() - started < timeoutMs) {
    const logged = builtVersions(logFile).has(versionId);
    if (logged && !seen) {
      seen = true;
      onLogged?.();
    }
    if (logged || performance.now() - asked >= FALLBACK_POLL_MS) {
      asked = performance.now();
      const response = await fetch(origin + path, { method: "HEAD" });
      if (response.status === 200) {
        // The fallback poll can find the file before the log check has seen its line: the
        // moment the build was seen done is then now (plus one HEAD's few ms of CPU), not never.
        if (!seen) onLogged?.();
        return (performance.now() - started) / 1000;
      }
      if (logged) throw new Error(`${path} answered ${response.status} after its parquet_built line`);
    }
    await new Promise((resolve) => setTimeout(resolve, LOG_POLL_MS));
  }
  throw new Error(`${path} not ready after ${timeoutMs / 1000} s`);
}

function builtLine(logFile: string, versionId: string): Built {
  const line = builtLines(logFile).find((built) => built.versionId === versionId);
  if (!line) throw new Error("no parquet_built line in the server log");
  return line;
}

interface Encoded {
  seconds: number;
  rows: number;
  segments: number;
  /** Columns past the distinct limit after this segment (and those before it). */
  distinctPast: number[];
}

/**
 * One segment of the version (or all of them) encoded as its build encodes it, in the worker,
 * statistics on or off; `past`, the columns the segments before it put past the distinct limit,
 * as the build carries them (the answer's `distinctPast` for the next segment).
 */
async function encoded(origin: string, datasetId: string, versionId: string, statistics: "on" | "off", segment: number | null, past: readonly number[] = []): Promise<Encoded> {
  const only = segment === null ? "" : `&segment=${segment}&past=${past.join(",")}`;
  const response = await fetch(`${origin}/__bench/parquet?dataset=${datasetId}&version=${versionId}&statistics=${statistics}${only}`, { method: "POST" });
  if (!response.ok) throw new Error(`/__bench/parquet answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Encoded;
}

/** One encoding of the whole version: the worker's wall time (its own clock) and the CPU time its workerd spent on it. */
interface Encoding {
  wall: number;
  cpu: number;
}

interface StatisticsCost {
  on: Encoding[];
  off: Encoding[];
  /** The workerd's CPU seconds per second while idle, before the encodings. */
  idle: number;
}

const IDLE_CHECK_MS = 3_000;

/**
 * The version encoded with the statistics and without, `runs` rounds. Each encoding's CPU time
 * is the worker workerd's utime + stime (/proc) across its requests: other work on the machine
 * delays an encoding far more than it adds to its CPU time, and what it adds is never negative,
 * so the least readings of each side give the statistics' own cost, where a difference of wall
 * times swings with the load (docs/performance.md, "The statistics' share as CPU time").
 * The two alternate a segment at a time, in the order off-on then on-off, so the load a pair
 * meets changes little between its halves.
 */
async function statisticsCost(origin: string, server: RunningServer, datasetId: string, versionId: string, runs: number): Promise<StatisticsCost> {
  const cost: StatisticsCost = { on: [], off: [], idle: 0 };
  // What the workerd spends with nothing asked of it, which every reading below also holds.
  const idle = await withCpu(server.workerPid(), () => new Promise((resolve) => setTimeout(resolve, IDLE_CHECK_MS)));
  cost.idle = idle.cpu / idle.wall;
  // Unmeasured: the number of segments, and the statistics' code run once more before the readings.
  const { segments } = await encoded(origin, datasetId, versionId, "on", 0);
  for (let run = 0; run < runs; run++) {
    const round = { on: { wall: 0, cpu: 0 }, off: { wall: 0, cpu: 0 } };
    let past: number[] = [];
    for (let segment = 0; segment < segments; segment++) {
      const order = (run + segment) % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      for (const statistics of order) {
        const before = past;
        const { result, cpu } = await withCpu(server.workerPid(), () => encoded(origin, datasetId, versionId, statistics, segment, before));
        if (statistics === "on") past = result.distinctPast;
        round[statistics].wall += result.seconds;
        round[statistics].cpu += cpu;
      }
    }
    cost.on.push(round.on);
    cost.off.push(round.off);
    process.stderr.write(`bench twin: encoding ${run + 1} of ${runs}: CPU off ${round.off.cpu.toFixed(2)} s, on ${round.on.cpu.toFixed(2)} s; wall off ${round.off.wall.toFixed(2)} s, on ${round.on.wall.toFixed(2)} s\n`);
  }
  return cost;
}

/** "median (min–max)" of some seconds. */
function spreadText(values: readonly number[]): string {
  return `${median([...values]).toFixed(2)} s (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
}

/** What the bench entry said of the last write's answer (X-Bench-Time, -D1, -R2). */
interface WorkerSplit {
  worker: number;
  d1Queries: number;
  d1Wait: number;
  r2Reads: number;
  r2Bytes: number;
  r2Wait: number;
}

/** A fetch for the appender's client that keeps the bench entry's split of each POST's answer. */
function splitRecorder(): { fetch: typeof fetch; last: () => WorkerSplit | null } {
  let last: WorkerSplit | null = null;
  const field = (header: string | null, name: string) => Number(new RegExp(`${name}=(\\d+(?:\\.\\d+)?)`).exec(header ?? "")?.[1] ?? Number.NaN);
  return {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? "GET") === "POST") {
        const d1 = response.headers.get("X-Bench-D1");
        const r2 = response.headers.get("X-Bench-R2");
        last = {
          worker: field(response.headers.get("X-Bench-Time"), "worker"),
          d1Queries: field(d1, "queries"),
          d1Wait: field(d1, "wait"),
          r2Reads: field(r2, "reads"),
          r2Bytes: field(r2, "bytes"),
          r2Wait: field(r2, "wait"),
        };
      }
      return response;
    },
    last: () => last,
  };
}

/** One-row appends alternated between two datasets, each timed from the client, with the Worker's split of each. */
async function appendLatency(client: PubsetClient, splits: () => WorkerSplit | null, large: string, small: string, count: number) {
  const times = { large: [] as number[], small: [] as number[] };
  const split = { large: [] as WorkerSplit[], small: [] as WorkerSplit[] };
  const timed = async (id: string, seed: number, into: WorkerSplit[]) => {
    const row = new TextDecoder().decode(csvRows(seed, 60_000_000 + seed, 1));
    const started = performance.now();
    await client.append(id, row);
    const seconds = (performance.now() - started) / 1000;
    const last = splits();
    if (last) into.push(last);
    return seconds;
  };
  for (let i = 0; i < count; i++) {
    times.large.push(await timed(large, 70_000 + i, split.large));
    times.small.push(await timed(small, 80_000 + i, split.small));
  }
  return { ...times, split };
}

/** The p50 of each field of the Worker's split, as one table cell. */
function splitText(splits: readonly WorkerSplit[]): string {
  if (splits.length === 0) return "—";
  const median = (pick: (s: WorkerSplit) => number) => Math.round(p50(splits.map(pick)));
  return `${median((s) => s.worker)} ms; D1 ${median((s) => s.d1Queries)} queries, ${median((s) => s.d1Wait)} ms; R2 ${median((s) => s.r2Reads)} reads (${median((s) => s.r2Bytes)} B), ${median((s) => s.r2Wait)} ms`;
}

/** Waits until `versionId`'s twin is ready and no build of `datasetId` was logged for `quietMs` (compaction's rebuilds included). */
async function settled(origin: string, logFile: string, datasetId: string, versionId: string, path: string, quietMs: number, timeoutMs: number): Promise<void> {
  await readiness(origin, logFile, versionId, path, timeoutMs);
  let count = -1;
  let since = performance.now();
  while (performance.now() - since < quietMs) {
    const now = builtLines(logFile).filter((built) => built.datasetId === datasetId).length;
    if (now !== count) {
      count = now;
      since = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** R2 bytes the twin builds of a new dataset wrote over `appends` one-row appends, per appended byte. */
async function appendedTwinBytes(client: PubsetClient, origin: string, logFile: string, appends: number): Promise<{ appended: number; written: number; builds: number; seconds: number }> {
  const created = await client.create({ name: "bench twin: appends", visibility: "public" }, HEADER + new TextDecoder().decode(csvRows(5, 1, 1)), { fileName: "appends.csv" });
  let appended = 0;
  let version = created.version;
  const started = performance.now();
  for (let i = 0; i < appends; i++) {
    const row = csvRows(90_000 + i, 2 + i, 1);
    appended += row.length;
    version = (await client.append(created.id, new TextDecoder().decode(row))).version;
  }
  await settled(origin, logFile, created.id, version, `/v1/dataset/${created.id}/${version}/appends.parquet`, 10_000, 30 * 60_000);
  const seconds = (performance.now() - started) / 1000;
  const builds = builtLines(logFile).filter((built) => built.datasetId === created.id);
  return { appended, written: builds.reduce((sum, built) => sum + (built.writtenBytes ?? 0), 0), builds: builds.length, seconds };
}

/**
 * R2 bytes the twin builds of a new dataset (created from `csvPath`) wrote over `appends` one-row
 * appends that come one at a time, each `spacingMs` after the last (past the 5 s delay an
 * append's twin message waits, APPEND_TWIN_DELAY_SECONDS, so every one finds its version the
 * latest and is built, as in production: no knob shortens the delay), per appended byte.
 */
async function trickledTwinBytes(client: PubsetClient, origin: string, logFile: string, csvPath: string, appends: number, spacingMs: number) {
  const created = await client.create({ name: "bench twin: trickle", visibility: "public" }, { path: csvPath }, { fileName: "trickle.csv" });
  await readiness(origin, logFile, created.version, `/v1/dataset/${created.id}/${created.version}/trickle.parquet`, 5 * 60_000);
  let appended = 0;
  let version = created.version;
  for (let i = 0; i < appends; i++) {
    const row = csvRows(95_000 + i, 70_000_000 + i, 1);
    appended += row.length;
    version = (await client.append(created.id, new TextDecoder().decode(row))).version;
    await new Promise((resolve) => setTimeout(resolve, spacingMs));
  }
  await settled(origin, logFile, created.id, version, `/v1/dataset/${created.id}/${version}/trickle.parquet`, 10_000, 10 * 60_000);
  const builds = builtLines(logFile).filter((built) => built.datasetId === created.id && built.versionId !== created.version);
  const written = builds.reduce((sum, built) => sum + (built.writtenBytes ?? 0), 0);
  return { appended, written, builds: builds.length, perBuild: builds.map((b) => b.writtenBytes ?? 0) };
}

/**
 * The isolate's live memory (V8 heap after a forced full collection, plus ArrayBuffers) from a
 * create's answer until its twin is ready, read at the isolate's pauses between tasks, which the
 * build reaches at each R2 read and write (heap.ts, sampleLiveHeap). What a task allocates and
 * drops before its next pause is not seen; what the build holds across its awaits (a row group
 * being filled, a part's summaries, the upload's buffer) is.
 */
async function buildMemory(client: PubsetClient, origin: string, logFile: string, inspector: Inspector, work: string, mebibytes: number): Promise<{ heap: HeapSummary; seconds: number; built: number }> {
  const csv = writeCsvFile(join(work, "memory.csv"), mebibytes * MIB, 37);
  const created = await client.create({ name: "bench twin: memory", visibility: "public" }, { path: csv.path }, { fileName: "memory.csv" });
  rmSync(csv.path);
  // BENCH_TWIN_SNAPSHOT=/tmp/twin: heap snapshots at the readings after one of BENCH_TWIN_SNAPSHOT_MIB (56; 0 for every
  // reading) or more, at most BENCH_TWIN_SNAPSHOT_MOST (3); not figures of record.
  const prefix = process.env.BENCH_TWIN_SNAPSHOT;
  const most = Number(process.env.BENCH_TWIN_SNAPSHOT_MOST ?? "3");
  // BENCH_TWIN_LIVE=all: every reading taken after a heap snapshot (not kept), which collects all V8 can.
  const all = process.env.BENCH_TWIN_LIVE === "all";
  const snapshots = all
    ? { prefix: prefix ?? null, atBytes: 0, most: Number.POSITIVE_INFINITY, readAfter: true }
    : prefix
      ? { prefix, atBytes: Number(process.env.BENCH_TWIN_SNAPSHOT_MIB ?? "56") * MIB, most }
      : null;
  const sampler = sampleLiveHeap(inspector, 1000, snapshots);
  const seconds = await readiness(origin, logFile, created.version, `/v1/dataset/${created.id}/${created.version}/memory.parquet`, 60 * 60_000);
  const heap = await sampler.stop();
  if (heap.before) process.stderr.write(`bench twin: the same pauses after one forced collection, in MiB: ${heap.before.map((r) => (r / MIB).toFixed(0)).join(" ")}\n`);
  return { heap, seconds, built: csv.bytes };
}

async function duckdbCopies(csv: string, work: string) {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  await connection.run("SET threads = 1");
  const timed = async (codec: string) => {
    const out = join(work, `duckdb-${codec}.parquet`);
    const started = performance.now();
    await connection.run(`COPY (SELECT * FROM read_csv('${csv}')) TO '${out}' (FORMAT parquet, COMPRESSION ${codec})`);
    return { seconds: (performance.now() - started) / 1000, bytes: statSync(out).size };
  };
  const snappy = await timed("snappy");
  const zstd = await timed("zstd");
  return { snappy, zstd };
}

async function main(): Promise<number> {
  const mebibytes = Number(process.env.BENCH_TWIN_MIB ?? "100");
  const appends = Number(process.env.BENCH_TWIN_APPENDS ?? "1000");
  const memoryMebibytes = Number(process.env.BENCH_TWIN_MEMORY_MIB ?? "1024");
  const latencyAppends = 20;
  /** One-row appends 7 s apart to a new 1 MiB dataset (BENCH_TWIN_TRICKLE; 0 skips them). */
  const trickleAppends = Number(process.env.BENCH_TWIN_TRICKLE ?? "10");
  /** BENCH_TWIN_STATISTICS=0 skips the statistics' cost (the encodings of the version) and DuckDB's COPY. */
  const withStatistics = process.env.BENCH_TWIN_STATISTICS !== "0";
  /** Encodings of the version with the statistics and without, each (BENCH_TWIN_ENCODINGS, at least 5). */
  const encodings = Math.max(5, Number(process.env.BENCH_TWIN_ENCODINGS ?? "25"));
  /** Builds of the CSV whose CPU readings the least is taken of (BENCH_TWIN_BUILDS); the first is the one whose speed is reported. */
  const builds = Math.max(1, Number(process.env.BENCH_TWIN_BUILDS ?? "3"));
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-twin-"));
  let server: RunningServer | null = null;
  let inspector: Inspector | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write(`bench twin: generating a ${mebibytes} MiB CSV…\n`);
    const csv = writeCsvFile(join(work, "orders.csv"), mebibytes * MIB, 31);
    const smallCsv = writeCsvFile(join(work, "small.csv"), MIB, 33);
    const stateDir = join(work, "state");
    const key: SigningKey = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-twin.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    const origin = server.origin;
    inspector = await Inspector.connect(server.inspectorPort).catch((error: unknown) => {
      process.stderr.write(`bench twin: no isolate memory figures: ${errorText(error)}\n`);
      return null;
    });
    const client = new PubsetClient({ url: origin, key, resumableThreshold: 0, retry: { baseDelayMs: 50 } });
    const splits = splitRecorder();
    const appender = new PubsetClient({ url: origin, key, retry: { baseDelayMs: 50 }, fetch: splits.fetch });
    process.stderr.write("bench twin: the 1 MiB dataset and its Parquet…\n");
    const small = await client.create({ name: "bench twin: small", visibility: "public" }, { path: smallCsv.path }, { fileName: "small.csv" });
    await readiness(origin, logFile, small.version, `/v1/dataset/${small.id}/${small.version}/small.parquet`, 5 * 60_000);
    process.stderr.write(`bench twin: the ${mebibytes} MiB create, then wait for its Parquet…\n`);
    const created = await client.create({ name: "bench twin", visibility: "public" }, { path: csv.path }, { fileName: "orders.csv" });
    const path = `/v1/dataset/${created.id}/${created.version}/orders.parquet`;
    const profileFile = process.env.BENCH_TWIN_PROFILE;
    if (profileFile && inspector) await inspector.startProfiling();
    // The build's CPU: the worker workerd's from the create's answer until the build's log line.
    const workerPid = server.workerPid();
    const cpuAtAnswer = cpuSeconds(workerPid);
    const buildCpus: number[] = [];
    const ready = await readiness(origin, logFile, created.version, path, 15 * 60_000, () => buildCpus.push(cpuSeconds(workerPid) - cpuAtAnswer));
    if (profileFile && inspector) {
      const profile = await inspector.stopProfiling();
      writeFileSync(`${profileFile}.cpuprofile`, JSON.stringify(profile));
      const summary = profileSummary(profile, 40);
      process.stderr.write(`bench twin: CPU profile of the build's ${summary.seconds.toFixed(1)} s: idle ${(summary.idle * 100).toFixed(1)} %; self time, largest first:\n`);
      for (const row of summary.rows) process.stderr.write(`  ${String(row.ms).padStart(7)} ms ${(row.share * 100).toFixed(1).padStart(5)} %  ${row.frame}\n`);
    }
    const built = builtLine(logFile, created.version);
    const file = new Uint8Array(await (await fetch(origin + path)).arrayBuffer());
    writeFileSync(join(work, "ours.parquet"), file);
    if (withStatistics) {
      // More builds of the same CSV (new datasets), for the least of the builds' CPU readings,
      // as the encodings' are read below.
      for (let extra = 1; extra < builds; extra++) {
        process.stderr.write(`bench twin: build ${extra + 1} of ${builds}, for its CPU time…\n`);
        const again = await client.create({ name: `bench twin: build ${extra + 1}`, visibility: "public" }, { path: csv.path }, { fileName: "orders.csv" });
        const atAnswer = cpuSeconds(workerPid);
        await readiness(origin, logFile, again.version, `/v1/dataset/${again.id}/${again.version}/orders.parquet`, 15 * 60_000, () => buildCpus.push(cpuSeconds(workerPid) - atAnswer));
      }
      process.stderr.write(`bench twin: the builds' CPU, in seconds: ${buildCpus.map((c) => c.toFixed(2)).join(", ")}\n`);
    }
    const buildCpu = Math.min(...buildCpus);
    process.stderr.write("bench twin: the statistics' cost, encoding the version with and without them…\n");
    const cost = withStatistics ? await statisticsCost(origin, server, created.id, created.version, encodings) : null;
    // The appends below find both twins older than a minute, as after the statistics' phase: the
    // first twin message of each dataset then builds its latest version while the next appends are
    // served (after-commit.ts, TWIN_STALE_MS), the case the latency ratio must hold in.
    if (!withStatistics) await new Promise((resolve) => setTimeout(resolve, STALE_WAIT_MS));
    process.stderr.write(`bench twin: ${latencyAppends} one-row appends to each dataset, twins in place…\n`);
    const buildsBefore = builtLines(logFile).length;
    const latency = await appendLatency(appender, splits.last, created.id, small.id, latencyAppends);
    // The twin builds that ran in the same isolate while the appends were served, per dataset.
    const during = builtLines(logFile).slice(buildsBefore);
    const buildsOf = (id: string) => during.filter((b) => b.datasetId === id);
    const buildText = (id: string) => `${buildsOf(id).length} (${buildsOf(id).map((b) => `${b.ms} ms`).join(", ") || "none"})`;
    process.stderr.write(`bench twin: ${appends} one-row appends to a new dataset, then its builds and compactions…\n`);
    const written = appends > 0 ? await appendedTwinBytes(appender, origin, logFile, appends) : null;
    process.stderr.write(`bench twin: ${trickleAppends} one-row appends 7 s apart to a new 1 MiB dataset…\n`);
    const trickle = trickleAppends > 0 ? await trickledTwinBytes(appender, origin, logFile, smallCsv.path, trickleAppends, 7_000) : null;
    let memory: Awaited<ReturnType<typeof buildMemory>> | null = null;
    if (memoryMebibytes > 0 && inspector) {
      process.stderr.write(`bench twin: a ${memoryMebibytes} MiB create, its build's live memory…\n`);
      memory = await buildMemory(client, origin, logFile, inspector, work, memoryMebibytes);
    }
    process.stderr.write("bench twin: DuckDB's COPY of the same file…\n");
    const duck = withStatistics ? await duckdbCopies(csv.path, work) : null;
    const ours = csv.bytes / MB / (built.ms / 1000);
    const theirs = duck ? csv.bytes / MB / duck.snappy.seconds : NaN;
    // Each round's own difference (its two halves met about the same load), and their median.
    // Other work on the machine only adds to a reading (cache misses, a busy sibling core), so the
    // least of each side is the nearest its own cost: the statistics' CPU is the difference of the
    // two least. Each round's own difference, and their median, say how far one reading strays.
    const leastOn = cost ? Math.min(...cost.on.map((e) => e.cpu)) : NaN;
    const leastOff = cost ? Math.min(...cost.off.map((e) => e.cpu)) : NaN;
    const statisticsCpu = leastOn - leastOff;
    const roundCosts = cost ? cost.on.map((on, i) => on.cpu - (cost.off[i]?.cpu ?? NaN)) : [];
    const roundShares = roundCosts.map((seconds) => seconds / buildCpu);
    const wallOn = cost ? Math.min(...cost.on.map((e) => e.wall)) : NaN;
    const wallOff = cost ? Math.min(...cost.off.map((e) => e.wall)) : NaN;
    const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
    const wallStatistics = Math.max(0, wallOn - wallOff);
    const ratio = p50(latency.large) / p50(latency.small);
    const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;
    const heap = (h: HeapSummary) =>
      `peak ${(h.peak / MIB).toFixed(1)} MiB, after the first reading ${(Math.max(0, ...h.readings.slice(1)) / MIB).toFixed(1)} MiB, median ${(p50(h.readings) / MIB).toFixed(1)} MiB (${h.samples} readings, the first ${(h.baseline / MIB).toFixed(1)} MiB; all, in MiB: ${h.readings.map((r) => (r / MIB).toFixed(0)).join(" ")})`;
    const report = [
      `### The Parquet twin in workerd`,
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:twin\` (BENCH_TWIN_MIB=${mebibytes}, BENCH_TWIN_APPENDS=${appends}, BENCH_TWIN_MEMORY_MIB=${memoryMebibytes}). The create: ${csv.rows.toLocaleString("en")} rows, ${(csv.bytes / MB).toFixed(1)} MB of CSV.`,
      "",
      "| figure | measured | goal |",
      "|---|---|---|",
      `| readiness: from the create's answer to its \`.parquet\` answering 200 | ${ready.toFixed(1)} s | |`,
      `| the build (its log line: wall time, R2 included; ${built.parts} part(s)) | ${(built.ms / 1000).toFixed(1)} s = ${ours.toFixed(1)} MB/s of CSV | |`,
      ...(duck && cost
        ? [
            `| DuckDB COPY … (FORMAT parquet, Snappy), one thread | ${duck.snappy.seconds.toFixed(1)} s = ${theirs.toFixed(1)} MB/s | |`,
            `| speed, pubset / DuckDB | **${(ours / theirs).toFixed(2)}×** | ≥ 0.5× |`,
            `| file size: pubset / DuckDB Snappy / DuckDB ZSTD | ${(file.length / MB).toFixed(1)} / ${(duck.snappy.bytes / MB).toFixed(1)} / ${(duck.zstd.bytes / MB).toFixed(1)} MB | |`,
            `| size, pubset / DuckDB Snappy | **${(file.length / duck.snappy.bytes).toFixed(2)}×** | ≤ 1.2× |`,
            `| the build's CPU: the worker workerd's utime + stime from a create's answer to its build's log line, least of ${buildCpus.length} builds of the CSV (each) | ${buildCpu.toFixed(2)} s (${buildCpus.map((c) => c.toFixed(2)).join(", ")}) | |`,
            `| the version's segments encoded as the build does, CPU, statistics off / on (median (min–max) of ${encodings} rounds, alternated a segment at a time) | ${spreadText(cost.off.map((e) => e.cpu))} / ${spreadText(cost.on.map((e) => e.cpu))} | |`,
            `| the statistics' CPU: least on − least off; each round's own on − off, median (min–max) | ${statisticsCpu.toFixed(2)} s; ${spreadText(roundCosts)} | |`,
            `| statistics' CPU share of the build: (least on − least off) / the build's CPU; the rounds' median (min–max) | **${percent(statisticsCpu / buildCpu)}**; ${percent(median(roundShares))} (${percent(Math.min(...roundShares))}–${percent(Math.max(...roundShares))}) | ≤ 10 % |`,
            `| the worker workerd's CPU while idle, ${IDLE_CHECK_MS / 1000} s before the encodings | ${(cost.idle * 1000).toFixed(0)} ms a second | |`,
            `| statistics' CPU share of the encoding with them: (least on − least off) / least on | ${percent(statisticsCpu / leastOn)} | |`,
            `| the same encodings, wall time, statistics off / on (median (min–max)) | ${spreadText(cost.off.map((e) => e.wall))} / ${spreadText(cost.on.map((e) => e.wall))} | |`,
            `| statistics' wall share, best of ${encodings} each: of that encoding / of the build's wall time | ${percent(wallStatistics / wallOn)} / ${percent(wallStatistics / (built.ms / 1000))} | |`,
          ]
        : [`| speed, size and the statistics' share | not measured (BENCH_TWIN_STATISTICS=0) | |`]),
      `| one-row append, p50, ${mebibytes} MiB / 1 MiB dataset, twins in place (${latencyAppends} each, alternated) | ${ms(p50(latency.large))} / ${ms(p50(latency.small))} | |`,
      `| append latency ratio ${mebibytes} MiB / 1 MiB (p50) | **${ratio.toFixed(2)}** | ≤ 1.2 |`,
      `| the Worker's split of an append (bench entry; p50 of each): time until its answer; D1 queries, wait; R2 reads, wait — ${mebibytes} MiB dataset | ${splitText(latency.split.large)} | |`,
      `| the same, 1 MiB dataset | ${splitText(latency.split.small)} | |`,
      `| twin builds logged while those appends were served: ${mebibytes} MiB / 1 MiB dataset (each build's wall time) | ${buildText(created.id)} / ${buildText(small.id)} | |`,
      ...(written
        ? [
            `| ${appends} one-row appends to a new dataset: appended CSV / R2 bytes its ${written.builds} twin builds wrote (compaction's rebuilds included) | ${(written.appended / 1000).toFixed(1)} kB / ${(written.written / MB).toFixed(1)} MB, in ${written.seconds.toFixed(0)} s | |`,
            `| R2 bytes written for Parquet per appended byte | **${(written.written / written.appended).toFixed(0)}×** | ≤ 8× |`,
          ]
        : [`| R2 bytes written for Parquet per appended byte | not measured (BENCH_TWIN_APPENDS=0) | ≤ 8× |`]),
      trickle
        ? `| ${trickleAppends} one-row appends 7 s apart to a new 1 MiB dataset: appended CSV / R2 bytes their ${trickle.builds} twin builds wrote (each build) | ${trickle.appended} B / ${trickle.written.toLocaleString("en")} B (${trickle.perBuild.map((b) => b.toLocaleString("en")).join(", ")}) | |`
        : `| a trickle of one-row appends | not measured (BENCH_TWIN_TRICKLE=0) | |`,
      ...(trickle ? [`| R2 bytes written for Parquet per appended byte, trickled | **${(trickle.written / trickle.appended).toFixed(0)}×** | ≤ 8× |`] : []),
      memory
        ? `| isolate live memory (heap after ${process.env.BENCH_TWIN_LIVE === "all" ? "a heap snapshot's collections, all V8 can" : "a forced collection"}, at the isolate's pauses between tasks), from a ${memoryMebibytes} MiB create's answer until its twin is ready (${(memory.built / MB).toFixed(0)} MB, ${memory.seconds.toFixed(0)} s) | **${heap(memory.heap)}** | < 64 MiB live |`
        : `| isolate live memory while building a ${memoryMebibytes} MiB version | not measured | < 64 MiB |`,
      "",
    ].join("\n");
    writeFileSync(join(OUT_DIR, "twin.md"), report);
    process.stdout.write(report);
    return 0;
  } finally {
    inspector?.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench twin", main);
