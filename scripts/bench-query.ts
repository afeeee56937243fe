// `npm run bench` (seventh part; alone: `npm run bench:query`): queries on a version in workerd.
// The bench's 100 MB orders CSV (BENCH_QUERY_MIB for a quicker run), whose `id` rises through
// the file, is created on a local `wrangler dev` (production setting: EDGE_CACHE=workers-cache,
// so every request here reaches the Worker) and its Parquet twin awaited. Then, signed (so no
// shared cache answers) and with `Cache-Control: no-cache` (so the Worker's answer cache does not):
//   - a selective query (`id` in a range of 100 rows) and a full-scan one (`where` on the
//     unclustered `city` column): wall time, and R2 bytes read (the bench entry's X-Bench-R2),
//     asked in turn with the floor of a request (a plain window; the version's record), after a
//     first selective query whose R2 bytes include the parts' metadata;
//   - the full-scan query's throughput in MB of CSV per second, next to DuckDB's time for the
//     same query on the same Parquet file on local disk (one thread, as a Worker has);
//   - a full scan read from the CSV segments (a `where` on a datetime, which the twin keeps as
//     instants), the rate the scan budget is chosen by (src/config.ts QUERY_SCAN_BUDGET_BYTES);
//   - the same query repeated anonymously in another spelling: D1 round trips and R2 bytes;
//   - with BENCH_QUERY_PROFILE=N, N selective queries under the isolate's CPU profiler.
// Goals (issue "Ask a version questions"): selective ≤ 0.1× the full scan's time; ≤ 5 % of the
// Parquet's bytes read by the selective query; a repeated explicit-version query reads no R2.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { signRequest } from "../src/wire/sign.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { Inspector, profileSummary } from "./bench/heap.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, MB, median, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
/** Requests per figure: the machine is shared, and a median of three moved the ratio by a third from run to run. */
const RUNS = 7;

interface Measured {
  seconds: number;
  r2Bytes: number;
  d1: number;
  matched: number;
  /** Milliseconds: the Worker's own time until its answer starts, and the part of it waited on R2 reads. */
  workerMs: number;
  r2WaitMs: number;
  r2Reads: number;
  d1WaitMs: number;
}

async function ready(origin: string, path: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if ((await fetch(origin + path, { method: "HEAD" })).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${path} not ready after ${timeoutMs / 1000} s`);
}

function counted(response: Response, name: string, field: string): number {
  const match = new RegExp(`${field}=(\\d+(?:\\.\\d+)?)`).exec(response.headers.get(name) ?? "");
  if (!match) throw new Error(`no ${name} ${field} in the answer`);
  return Number(match[1]);
}

async function query(origin: string, path: string, key: SigningKey | null): Promise<Measured> {
  const url = origin + path;
  const headers = key ? await signRequest({ method: "GET", url, headers: { "Cache-Control": "no-cache" } }, key) : new Headers();
  const started = performance.now();
  const response = await fetch(url, { headers });
  const text = await response.text();
  const seconds = (performance.now() - started) / 1000;
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  const body = JSON.parse(text) as { matched: number; partial: boolean };
  if (body.partial) throw new Error(`${path}: partial answer (scan budget met)`);
  return {
    seconds,
    r2Bytes: counted(response, "X-Bench-R2", "bytes"),
    d1: counted(response, "X-Bench-D1", "queries"),
    matched: body.matched,
    workerMs: counted(response, "X-Bench-Time", "worker"),
    r2WaitMs: counted(response, "X-Bench-R2", "wait"),
    r2Reads: counted(response, "X-Bench-R2", "reads"),
    d1WaitMs: counted(response, "X-Bench-D1", "wait"),
  };
}

async function timed(origin: string, path: string, key: SigningKey): Promise<Measured> {
  return (await interleaved(origin, [path], key))[0]!;
}

/**
 * Each path's median over RUNS, the paths asked in turn, so a change in the machine's load falls
 * on all of them alike; bytes and reads are the last run's, once the part metadata a query needs
 * is kept (the first query's line counts it).
 */
async function interleaved(origin: string, paths: readonly string[], key: SigningKey): Promise<Measured[]> {
  const runs: Measured[][] = paths.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [p, path] of paths.entries()) runs[p]!.push(await query(origin, path, key));
  return runs.map((each) => ({
    ...each.at(-1)!,
    seconds: median(each.map((run) => run.seconds)),
    workerMs: median(each.map((run) => run.workerMs)),
    r2WaitMs: median(each.map((run) => run.r2WaitMs)),
    d1WaitMs: median(each.map((run) => run.d1WaitMs)),
  }));
}

/** A signed GET that answers JSON without `matched`: its time only. */
async function plainTime(origin: string, path: string, key: SigningKey): Promise<number> {
  const seconds: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const url = origin + path;
    const headers = await signRequest({ method: "GET", url, headers: { "Cache-Control": "no-cache" } }, key);
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    seconds.push((performance.now() - started) / 1000);
  }
  return median(seconds);
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
    // The first reads of the part metadata (kept in the isolate after) are counted in the R2 bytes, not in the times.
    const first = await query(server.origin, q(selectiveWhere), key);
    // The floor every request here pays (wrangler dev, the signature, the D1 batch, JSON): a 100-row window, no question.
    const [selective, scan, floor] = (await interleaved(server.origin, [q(selectiveWhere), q(scanWhere), `${base}/rows?limit=100&offset=${middle}`], key)) as [Measured, Measured, Measured];
    const record = await plainTime(server.origin, base, key);
    const csvWhere = "ordered_at >= '2099-01-01T00:00:00Z'";
    const csvScan = await timed(server.origin, q(csvWhere), key);
    process.stderr.write("bench query: DuckDB on the same Parquet file…\n");
    const duck = await duckdbScan(parquetFile, scanWhere);
    if (duck.matched !== scan.matched) throw new Error(`full scan: pubset matched ${scan.matched}, DuckDB ${duck.matched}`);
    process.stderr.write("bench query: a repeated query, spelled another way…\n");
    await query(server.origin, q(selectiveWhere), null);
    const repeat = await query(server.origin, `${base}/rows?where=${encodeURIComponent(`(id>=${middle}) and id<${middle + 100}.0`)}&limit=100`, null);

    const csvMB = csv.bytes / MB;
    const split = (m: Measured) => `${(m.seconds * 1000).toFixed(0)} / ${m.workerMs} / ${m.d1WaitMs} / ${m.r2WaitMs} (${m.r2Reads})`;
    const share = (bytes: number) => `${((100 * bytes) / parquet.length).toFixed(1)} %`;
    const report = [
      `### Queries on a ${mebibytes} MiB version, in workerd`,
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:query\` (BENCH_QUERY_MIB=${mebibytes}). ${csv.rows.toLocaleString("en")} rows, ${csvMB.toFixed(1)} MB of CSV, a ${(parquet.length / MB).toFixed(1)} MB Parquet twin. Times are the median of ${RUNS} signed requests with \`Cache-Control: no-cache\`; R2 bytes are what the request read (X-Bench-R2).`,
      "",
      "| figure | measured | goal |",
      "|---|---|---|",
      `| selective: \`${selectiveWhere}\` (${selective.matched} rows) | ${(selective.seconds * 1000).toFixed(0)} ms, ${(selective.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(selective.r2Bytes)} of the Parquet | ≤ 5 % |`,
      `| the same, the first query of the isolate (it reads the parts' metadata too) | ${(first.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(first.r2Bytes)} of the Parquet | ≤ 5 % |`,
      `| full scan: \`${scanWhere}\` (${scan.matched} rows) | ${(scan.seconds * 1000).toFixed(0)} ms, ${(scan.r2Bytes / MB).toFixed(2)} MB from R2 = ${share(scan.r2Bytes)} of the Parquet | |`,
      `| a plain window of 100 rows from the middle (no question): the floor of a request here | ${(floor.seconds * 1000).toFixed(0)} ms, ${(floor.r2Bytes / MB).toFixed(2)} MB from R2 | |`,
      `| the version's record (\`GET /v1/dataset/{id}/{version}\`, no R2): what any signed request costs here | ${(record * 1000).toFixed(0)} ms | |`,
      `| where a request's time goes (median ms): wall at the client / in the Worker until its answer starts / of that, waiting on D1 / on R2 reads (reads) | selective ${split(selective)}; full scan ${split(scan)}; plain window ${split(floor)} | |`,
      `| selective / full scan, time | **${(selective.seconds / scan.seconds).toFixed(3)}×** | ≤ 0.1× |`,
      `| full-scan throughput | **${(csvMB / scan.seconds).toFixed(1)} MB of CSV/s** | |`,
      `| full scan from the CSV segments: \`${csvWhere}\` (${csvScan.matched} rows) | ${(csvScan.seconds * 1000).toFixed(0)} ms = **${(csvMB / csvScan.seconds).toFixed(1)} MB of CSV/s**, ${(csvScan.r2Bytes / MB).toFixed(2)} MB from R2 | |`,
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
