// `npm run bench` (sixth part; alone: `npm run bench:twin`): the Parquet twin inside workerd.
// The bench's 100 MB mixed-type CSV (BENCH_TWIN_MIB for a quicker run) is created as a
// resumable upload on a local `wrangler dev`; the time from the create's answer until its
// `.parquet` answers 200 is the readiness, and the build's own log line (`parquet_built`) gives
// its wall time, hence its throughput in MB of CSV per second. DuckDB's COPY … (FORMAT parquet)
// of the same file is the yardstick, for speed (one thread, as a Worker has) and size (Snappy,
// ZSTD). Goals (docs/performance.md): ≥ 0.5× DuckDB's speed, ≤ 1.2× its Snappy size.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, MB, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");

interface Built {
  ms: number;
  fileBytes: number;
  parts: number;
}

async function readiness(origin: string, path: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const response = await fetch(origin + path, { method: "HEAD" });
    if (response.status === 200) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} not ready after ${timeoutMs / 1000} s`);
}

function builtLine(logFile: string, versionId: string): Built {
  const line = readFileSync(logFile, "utf8")
    .split("\n")
    .find((l) => l.includes('"event":"parquet_built"') && l.includes(versionId));
  if (!line) throw new Error("no parquet_built line in the server log");
  return JSON.parse(line.slice(line.indexOf("{"))) as Built;
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
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-twin-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write(`bench twin: generating a ${mebibytes} MiB CSV…\n`);
    const csv = writeCsvFile(join(work, "orders.csv"), mebibytes * MIB, 31);
    const stateDir = join(work, "state");
    const key: SigningKey = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-twin.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    const client = new PubsetClient({ url: server.origin, key, resumableThreshold: 0 });
    process.stderr.write("bench twin: create, then wait for its Parquet…\n");
    const created = await client.create({ name: "bench twin", visibility: "public" }, { path: csv.path }, { fileName: "orders.csv" });
    const path = `/v1/dataset/${created.id}/${created.version}/orders.parquet`;
    const ready = await readiness(server.origin, path, 15 * 60_000);
    const built = builtLine(logFile, created.version);
    const file = new Uint8Array(await (await fetch(server.origin + path)).arrayBuffer());
    writeFileSync(join(work, "ours.parquet"), file);
    process.stderr.write("bench twin: DuckDB's COPY of the same file…\n");
    const duck = await duckdbCopies(csv.path, work);
    const ours = csv.bytes / MB / (built.ms / 1000);
    const theirs = csv.bytes / MB / duck.snappy.seconds;
    const report = [
      `### The Parquet twin of a ${mebibytes} MiB create, in workerd`,
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:twin\` (BENCH_TWIN_MIB=${mebibytes}). ${csv.rows.toLocaleString("en")} rows, ${(csv.bytes / MB).toFixed(1)} MB of CSV.`,
      "",
      "| figure | measured | goal |",
      "|---|---|---|",
      `| from the create's answer to its \`.parquet\` answering 200 | ${ready.toFixed(1)} s | |`,
      `| the build (its log line: wall time, R2 included; ${built.parts} part(s)) | ${(built.ms / 1000).toFixed(1)} s = ${ours.toFixed(1)} MB/s of CSV | |`,
      `| DuckDB COPY … (FORMAT parquet, Snappy), one thread | ${duck.snappy.seconds.toFixed(1)} s = ${theirs.toFixed(1)} MB/s | |`,
      `| speed, pubset / DuckDB | **${(ours / theirs).toFixed(2)}×** | ≥ 0.5× |`,
      `| file size: pubset / DuckDB Snappy / DuckDB ZSTD | ${(file.length / MB).toFixed(1)} / ${(duck.snappy.bytes / MB).toFixed(1)} / ${(duck.zstd.bytes / MB).toFixed(1)} MB | |`,
      `| size, pubset / DuckDB Snappy | **${(file.length / duck.snappy.bytes).toFixed(2)}×** | ≤ 1.2× |`,
      "",
    ].join("\n");
    writeFileSync(join(OUT_DIR, "twin.md"), report);
    process.stdout.write(report);
    return 0;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench twin", main);
