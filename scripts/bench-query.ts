// `npm run bench` (seventh part; alone: `npm run bench:query`): queries on a version in workerd.
// The bench's 100 MB orders CSV (BENCH_QUERY_MIB for a quicker run), whose `id` rises through
// the file, is created on a local `wrangler dev` (production setting: EDGE_CACHE=workers-cache,
// so every request here reaches the Worker) and its Parquet twin awaited. Then, signed (so no
// shared cache answers) and with `Cache-Control: no-cache` (so the Worker's answer cache does not),
// over kept-alive node:http connections:
//   - a selective query (`id` in a range of 100 rows) and a full-scan one (`where` on the
//     unclustered `city` column): time at the client through wrangler's port (its proxy, which
//     the platform does not have) and straight to the worker's own socket (worker-socket.ts),
//     the Worker's own time and its waits on D1, the rate limiter and R2 (the bench entry's
//     X-Bench-* fields), and R2 bytes read, asked in turn with the floor of a request (a plain
//     window; the version's record; the bench entry's bare route), after a first selective query
//     whose R2 bytes include the parts' metadata; and workerd's CPU time per query;
//   - the full-scan query's throughput in MB of CSV per second, next to DuckDB's time for the
//     same query on the same Parquet file on local disk (one thread, as a Worker has);
//   - a full scan read from the CSV segments (a `where` on a datetime, which the twin keeps as
//     instants), the rate the scan budget is chosen by (src/config.ts QUERY_SCAN_BUDGET_BYTES);
//   - the same query repeated anonymously in another spelling: D1 round trips and R2 bytes;
//   - with BENCH_QUERY_PROFILE=N, N selective queries under the isolate's CPU profiler.
// Goals (issue "Ask a version questions"): selective ≤ 0.1× the full scan's time, read on the
// Worker's own time (docs/performance.md "Queries" says why); ≤ 5 % of the Parquet's bytes read
// by the selective query; a repeated explicit-version query reads no R2.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { signRequest } from "../src/wire/sign.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { Inspector, profileSummary } from "./bench/heap.ts";
import { exchange } from "./bench/http.ts";
import { cpuMilliseconds, workerOrigin } from "./bench/worker-socket.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, MB, median, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
/** Requests per figure and way in: the machine is shared, and a median of three moved the ratio by a third from run to run. */
const RUNS = 11;
/** Requests of one query in a row whose workerd CPU time is divided among them (10 ms clock ticks). */
const CPU_RUNS = { selective: 30, full: 10 };
const TIMEOUT_MS = 120_000;
/** Pause before each timed request (interleaved), for the work the previous one left behind. */
const SETTLE_MS = 100;

interface Measured {
  seconds: number;
  r2Bytes: number;
  d1: number;
  matched: number;
  /** Milliseconds: the Worker's own time until its answer starts, and the parts of it waited on R2 reads, D1 and the rate limiter. */
  workerMs: number;
  r2WaitMs: number;
  r2Reads: number;
  d1WaitMs: number;
  limitWaitMs: number;
}

async function ready(origin: string, path: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if ((await fetch(origin + path, { method: "HEAD" })).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${path} not ready after ${timeoutMs / 1000} s`);
}

function counted(headers: Record<string, string | string[] | undefined>, name: string, field: string): number {
  const match = new RegExp(`${field}=(\\d+(?:\\.\\d+)?)`).exec(String(headers[name.toLowerCase()] ?? ""));
  if (!match) throw new Error(`no ${name} ${field} in the answer`);
  return Number(match[1]);
}

/**
 * One GET over node:http's kept-alive connections (undici's fetch cost 0.4–2.3 ms more a request
 * here), signed with `Cache-Control: no-cache` when `key` is given (the signature made before the
 * clock starts), else anonymous and plain, as a repeat that may be answered from a cache.
 */
async function get(origin: string, path: string, key: SigningKey | null) {
  const url = origin + path;
  const headers = key ? await signRequest({ method: "GET", url, headers: { "Cache-Control": "no-cache" } }, key) : new Headers();
  const result = await exchange({ method: "GET", url, headers, timeoutMs: TIMEOUT_MS, keepBody: true });
  if (result.status !== 200) throw new Error(`${path}: ${result.status} ${result.text.slice(0, 300)}`);
  return result;
}

async function query(origin: string, path: string, key: SigningKey | null): Promise<Measured> {
  const result = await get(origin, path, key);
  const body = JSON.parse(result.text) as { matched: number; partial: boolean };
  if (body.partial) throw new Error(`${path}: partial answer (scan budget met)`);
  return {
    seconds: result.seconds,
    r2Bytes: counted(result.headers, "X-Bench-R2", "bytes"),
    d1: counted(result.headers, "X-Bench-D1", "queries"),
    matched: body.matched,
    workerMs: counted(result.headers, "X-Bench-Time", "worker"),
    r2WaitMs: counted(result.headers, "X-Bench-R2", "wait"),
    r2Reads: counted(result.headers, "X-Bench-R2", "reads"),
    d1WaitMs: counted(result.headers, "X-Bench-D1", "wait"),
    limitWaitMs: counted(result.headers, "X-Bench-Limit", "wait"),
  };
}

/** Medians of `runs`; bytes and reads are the last run's. */
function medianOf(runs: readonly Measured[]): Measured {
  const of = (pick: (run: Measured) => number) => median(runs.map(pick));
  return {
    ...runs.at(-1)!,
    seconds: of((run) => run.seconds),
    workerMs: of((run) => run.workerMs),
    r2WaitMs: of((run) => run.r2WaitMs),
    d1WaitMs: of((run) => run.d1WaitMs),
    limitWaitMs: of((run) => run.limitWaitMs),
  };
}

/** A path asked through wrangler's port and straight at the worker's socket: the client's time by each, the Worker's over both. */
interface Routed {
  proxied: Measured;
  direct: Measured;
  worker: Measured;
}

async function timed(origin: string, path: string, key: SigningKey): Promise<Measured> {
  const runs: Measured[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await query(origin, path, key));
  return medianOf(runs);
}

/**
 * Each path's medians over RUNS, the paths (and the two ways in) asked in turn, so a change in
 * the machine's load falls on all of them alike; bytes and reads are the last run's, once the
 * part metadata a query needs is kept (the first query's line counts it).
 */
async function interleaved(origins: { proxied: string; direct: string }, paths: readonly string[], key: SigningKey): Promise<Routed[]> {
  const runs = paths.map(() => ({ proxied: [] as Measured[], direct: [] as Measured[] }));
  for (let i = 0; i < RUNS; i++) {
    for (const [p, path] of paths.entries()) {
      // Each way first in every other run, so neither always follows the other.
      for (const way of i % 2 === 0 ? (["proxied", "direct"] as const) : (["direct", "proxied"] as const)) {
        // What a request leaves to waitUntil (its answer kept) runs on workerd's one thread: let
        // it end before the next request starts, as it would not delay one on the platform.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        runs[p]![way].push(await query(origins[way], path, key));
      }
    }
  }
  return runs.map(({ proxied, direct }) => ({ proxied: medianOf(proxied), direct: medianOf(direct), worker: medianOf([...proxied, ...direct]) }));
}

/** A GET's median time at the client, and the Worker's own time when the bench entry reports it. */
async function plainTime(origin: string, path: string, key: SigningKey | null): Promise<{ seconds: number; workerMs: number }> {
  const seconds: number[] = [];
  const worker: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await get(origin, path, key);
    seconds.push(result.seconds);
    if (result.headers["x-bench-time"] !== undefined) worker.push(counted(result.headers, "X-Bench-Time", "worker"));
  }
  return { seconds: median(seconds), workerMs: median(worker) };
}

/**
 * workerd's CPU time per request over `count` requests of `path` in a row (straight at its
 * socket): the Worker's own work and that of the local D1, R2, cache and rate limiter it runs,
 * which share its thread; the machine's load moves it far less than wall time. Work a request
 * leaves behind (the answer kept in waitUntil) is counted in the block.
 */
async function cpuPerRequest(pid: number, origin: string, path: string, key: SigningKey, count: number): Promise<number> {
  await get(origin, path, key);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  await settle();
  const before = cpuMilliseconds(pid);
  for (let i = 0; i < count; i++) await get(origin, path, key);
  await settle();
  return (cpuMilliseconds(pid) - before) / count;
}

async function duckdbScan(file: string, where: string): Promise<{ seconds: number; matched: number }> {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  await connection.run("SET threads = 1");
  const seconds: number[] = [];
  let matched = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const rows = (await connection.runAndReadAll(`SELECT count(*) FROM read_parquet('${file}') WHERE ${where}`)).getRows();
    await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}') WHERE ${where} LIMIT 100`);
    seconds.push((performance.now() - started) / 1000);
    matched = Number(rows[0]?.[0]);
  }
  connection.closeSync();
  return { seconds: median(seconds), matched };
}

/**
 * BENCH_QUERY_PROFILE=N: after the report, N selective queries in a row under V8's sampling
 * profiler in the isolate (over wrangler dev's inspector): where the Worker's own time goes.
 */
async function profileSelective(server: RunningServer, path: string, key: SigningKey, count: number): Promise<string> {
  const inspector = await Inspector.connect(server.inspectorPort);
  try {
    await inspector.startProfiling(250);
    const started = performance.now();
    for (let i = 0; i < count; i++) await query(server.origin, path, key);
    const wall = performance.now() - started;
    const summary = profileSummary(await inspector.stopProfiling(), 20);
    const busy = summary.seconds * (1 - summary.idle) * 1000;
    return [
      "",
      `#### Profile of ${count} selective queries in a row`,
      "",
      `${(wall / count).toFixed(1)} ms a query at the client; the isolate busy ${(busy / count).toFixed(1)} ms a query (${(100 * (1 - summary.idle)).toFixed(0)} % of ${(summary.seconds * 1000).toFixed(0)} ms profiled). Self time, all queries:`,
      "",
      "| ms | share | function |",
      "|---|---|---|",
      ...summary.rows.map((row) => `| ${row.ms} | ${(100 * row.share).toFixed(1)} % | \`${row.frame}\` |`),
      "",
    ].join("\n");
  } finally {
    inspector.close();
  }
}

async function main(): Promise<number> {
  const mebibytes = Number(process.env.BENCH_QUERY_MIB ?? "100");
  const port = Number(process.env.BENCH_QUERY_PORT ?? (await freePort()));
  const inspector = process.env.BENCH_QUERY_INSPECTOR_PORT === undefined ? undefined : Number(process.env.BENCH_QUERY_INSPECTOR_PORT);
  const profiled = Number(process.env.BENCH_QUERY_PROFILE ?? "0");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-query-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write(`bench query: generating a ${mebibytes} MiB CSV…\n`);
    const csv = writeCsvFile(join(work, "orders.csv"), mebibytes * MIB, 31);
    const stateDir = join(work, "state");
    const key: SigningKey = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    server = await startServer(build, stateDir, port, join(OUT_DIR, "wrangler-query.log"), {}, inspector);
    const client = new PubsetClient({ url: server.origin, key, resumableThreshold: 0 });
    process.stderr.write("bench query: create, then wait for its Parquet…\n");
    const created = await client.create({ name: "bench query", visibility: "public" }, { path: csv.path }, { fileName: "orders.csv" });
    const base = `/v1/dataset/${created.id}/${created.version}`;
    await ready(server.origin, `${base}/orders.parquet`, 15 * 60_000);
    const parquet = new Uint8Array(await (await fetch(`${server.origin}${base}/orders.parquet`)).arrayBuffer());
    const parquetFile = join(work, "orders.parquet");
    writeFileSync(parquetFile, parquet);

    const middle = Math.floor(csv.rows / 2);
    const selectiveWhere = `id >= ${middle} AND id < ${middle + 100}`;
    const scanWhere = "city = 'Oslo'";
    const q = (where: string) => `${base}/rows?where=${encodeURIComponent(where)}&limit=100`;
    process.stderr.write("bench query: selective and full-scan queries…\n");
    const direct = await workerOrigin(server.workerPid());
    if (direct === null) throw new Error("the worker's own socket was not found (is the bench entry served?)");
    const origins = { proxied: server.origin, direct };
    // The first reads of the part metadata (kept in the isolate after) are counted in the R2 bytes, not in the times.
    const first = await query(server.origin, q(selectiveWhere), key);
    // The floor every request here pays (wrangler dev, the signature, the D1 batch, JSON): a 100-row window, no question.
    const [selective, scan, floor] = (await interleaved(origins, [q(selectiveWhere), q(scanWhere), `${base}/rows?limit=100&offset=${middle}`], key)) as [Routed, Routed, Routed];
    const record = { proxied: await plainTime(server.origin, base, key), direct: await plainTime(direct, base, key) };
    const bare = { proxied: await plainTime(server.origin, "/__bench/bare", null), direct: await plainTime(direct, "/__bench/bare", null) };
    const cpu = {
      selective: await cpuPerRequest(server.workerPid(), direct, q(selectiveWhere), key, CPU_RUNS.selective),
      full: await cpuPerRequest(server.workerPid(), direct, q(scanWhere), key, CPU_RUNS.full),
    };
    const csvWhere = "ordered_at >= '2099-01-01T00:00:00Z'";
    const csvScan = await timed(server.origin, q(csvWhere), key);
    process.stderr.write("bench query: DuckDB on the same Parquet file…\n");
    const duck = await duckdbScan(parquetFile, scanWhere);
    if (duck.matched !== scan.worker.matched) throw new Error(`full scan: pubset matched ${scan.worker.matched}, DuckDB ${duck.matched}`);
    process.stderr.write("bench query: a repeated query, spelled another way…\n");
    await query(server.origin, q(selectiveWhere), null);
    const repeat = await query(server.origin, `${base}/rows?where=${encodeURIComponent(`(id>=${middle}) and id<${middle + 100}.0`)}&limit=100`, null);

    const csvMB = csv.bytes / MB;
    const ms = (seconds: number) => (seconds * 1000).toFixed(1);
    const ways = (r: Routed) => `${ms(r.proxied.seconds)} / ${ms(r.direct.seconds)} / **${r.worker.workerMs.toFixed(1)}**`;
    const split = (m: Measured) => `${m.workerMs.toFixed(1)} / ${m.d1WaitMs.toFixed(1)} / ${m.limitWaitMs.toFixed(1)} / ${m.r2WaitMs.toFixed(1)} (${m.r2Reads})`;
    const share = (bytes: number) => `${((100 * bytes) / parquet.length).toFixed(1)} %`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(3)}×`;
    const report = [
      `### Queries on a ${mebibytes} MiB version, in workerd`,
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:query\` (BENCH_QUERY_MIB=${mebibytes}). ${csv.rows.toLocaleString("en")} rows, ${csvMB.toFixed(1)} MB of CSV, a ${(parquet.length / MB).toFixed(1)} MB Parquet twin. Times are medians of ${RUNS} signed requests with \`Cache-Control: no-cache\` over kept-alive connections, in ms: at the client through wrangler dev's port (its proxy) / at the client straight to the worker's own socket / in the Worker until its answer starts (the bench entry's X-Bench-Time, over both). R2 bytes are what the request read (X-Bench-R2).`,
      "",
      "| figure | measured | goal |",
      "|---|---|---|",
      `| selective: \`${selectiveWhere}\` (${selective.worker.matched} rows), ms | ${ways(selective)}; ${(selective.worker.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(selective.worker.r2Bytes)} of the Parquet | ≤ 5 % |`,
      `| the same, the first query of the isolate (it reads the parts' metadata too) | ${(first.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(first.r2Bytes)} of the Parquet | ≤ 5 % |`,
      `| full scan: \`${scanWhere}\` (${scan.worker.matched} rows), ms | ${ways(scan)}; ${(scan.worker.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(scan.worker.r2Bytes)} of the Parquet | |`,
      `| a plain window of 100 rows from the middle (no question), ms | ${ways(floor)}; ${(floor.worker.r2Bytes / MB).toFixed(2)} MB from R2 | |`,
      `| the version's record (\`GET /v1/dataset/{id}/{version}\`, no R2), ms | ${ms(record.proxied.seconds)} / ${ms(record.direct.seconds)} / ${record.direct.workerMs.toFixed(1)} | |`,
      `| the bench entry's bare route (no middleware, no D1), ms at the client | ${ms(bare.proxied.seconds)} through the proxy / ${ms(bare.direct.seconds)} straight | |`,
      `| in the Worker, ms: its time / waiting on D1 / on the rate limiter / on R2 reads (reads) | selective ${split(selective.worker)}; full scan ${split(scan.worker)}; plain window ${split(floor.worker)} | |`,
      `| selective / full scan, **in the Worker** (the goal's reading) | **${ratio(selective.worker.workerMs, scan.worker.workerMs)}** | ≤ 0.1× |`,
      `| selective / full scan, at the client straight / through wrangler's proxy | ${ratio(selective.direct.seconds, scan.direct.seconds)} / ${ratio(selective.proxied.seconds, scan.proxied.seconds)} | |`,
      `| workerd's CPU per query (the Worker, and the local D1, R2, cache and rate limiter on its thread; ${CPU_RUNS.selective} and ${CPU_RUNS.full} in a row) | selective ${cpu.selective.toFixed(1)} ms, full scan ${cpu.full.toFixed(1)} ms = ${ratio(cpu.selective, cpu.full)} | |`,
      `| full-scan throughput, in the Worker | **${(csvMB / (scan.worker.workerMs / 1000)).toFixed(1)} MB of CSV/s** | |`,
      `| full scan from the CSV segments: \`${csvWhere}\` (${csvScan.matched} rows) | ${(csvScan.seconds * 1000).toFixed(0)} ms at the client = **${(csvMB / csvScan.seconds).toFixed(1)} MB of CSV/s**, ${(csvScan.r2Bytes / MB).toFixed(2)} MB from R2 | |`,
      `| DuckDB, same query (count and first 100 rows) on the same Parquet file on local disk, one thread | ${(duck.seconds * 1000).toFixed(0)} ms = ${(csvMB / duck.seconds).toFixed(1)} MB of CSV/s | |`,
      `| the selective query again, anonymous, spelled \`(id>=${middle}) and id<${middle + 100}.0\` | ${repeat.d1} D1 round trip(s), ${repeat.r2Bytes} R2 bytes | no R2 |`,
      "",
      "In production a repeat of the same URL is a Workers Cache hit that never runs the Worker; the last line is what a repeat costs once it reaches the Worker: one D1 batch (who may read which version), then the kept answer.",
      "",
    ].join("\n");
    writeFileSync(join(OUT_DIR, "query.md"), report);
    process.stdout.write(report);
    if (profiled > 0) process.stdout.write(await profileSelective(server, q(selectiveWhere), key, profiled));
    return 0;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench query", main);
