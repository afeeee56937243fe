// `npm run bench`: ingest, memory, append and download figures of a local worker (wrangler dev
// on a throw-away state directory serving the bench entry, src/bench-entry.ts), the compression
// levels in Node and in that workerd, and the CSV scanner's own speed, printed as markdown and
// written to bench/out/latest.md. A script, not a test: numbers depend on the machine.
// `npm run bench:quick`: 1 and 10 MB only, fewer runs, to check the bench itself works.
// `npm run bench:ingest`: only the creates (plain CSV, our parted gzip, plain gzip) and their baselines.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { limitsFrom } from "../src/config.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";
import { writeClientGzips } from "./bench/client-gzip.ts";
import { writeCsvFile, type GeneratedCsv } from "./bench/csv-gen.ts";
import { Inspector } from "./bench/heap.ts";
import { measureLevels } from "./bench/levels.ts";
import { emptyMeasured, measureAll, measureIngest, type BenchData } from "./bench/measure.ts";
import { measureEdge, type EdgeResults } from "./bench/edge.ts";
import { renderEdge } from "./bench/edge-report.ts";
import { renderIngestReport, renderReport } from "./bench/report.ts";
import { attempt, failures, ingestFailures, skipped, type BenchResults } from "./bench/results.ts";
import type { LevelResult } from "./bench/levels.ts";
import type { ScannerResult } from "./bench/scanner.ts";
import { measureScanner } from "./bench/scanner.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { ServerLog } from "./bench/server-log.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { errorText, MB } from "./bench/stats.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
const FULL_SIZES = [
  { label: "1 MB", bytes: 1 * MB, seed: 1, runs: 3, sampleMemory: false },
  { label: "10 MB", bytes: 10 * MB, seed: 10, runs: 3, sampleMemory: false },
  { label: "100 MB", bytes: 100 * MB, seed: 100, runs: 2, sampleMemory: true },
];
/** `--quick`: the largest size is the one memory, downloads and rows are measured on. */
const QUICK_SIZES = [
  { label: "1 MB", bytes: 1 * MB, seed: 1, runs: 2, sampleMemory: false },
  { label: "10 MB", bytes: 10 * MB, seed: 10, runs: 2, sampleMemory: true },
];
type Size = (typeof FULL_SIZES)[number];

function options(): { quick: boolean; ingest: boolean; edge: boolean } {
  const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, ingest: { type: "boolean", default: false }, edge: { type: "boolean", default: false } } });
  return { quick: values.quick, ingest: values.ingest, edge: values.edge };
}

function chosenSizes(): Size[] {
  return options().quick ? QUICK_SIZES : FULL_SIZES;
}

function machine(): string {
  const cpu = cpus();
  const wrangler = JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", "wrangler", "package.json"), "utf8")) as { version: string };
  return (
    `${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, ` +
    `Linux ${release()}, Node ${process.version}, wrangler ${wrangler.version} (local workerd), ` +
    `load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} at the end (1/5/15 min)`
  );
}

/** COMPRESSION_LEVEL from wrangler.toml's [vars] when set there, else the src/config.ts default. */
function compressionLevel(): number {
  const toml = readFileSync(join(PROJECT_ROOT, "wrangler.toml"), "utf8");
  const match = /^\s*COMPRESSION_LEVEL\s*=\s*"(\d+)"/m.exec(toml);
  return limitsFrom(match?.[1] === undefined ? {} : { COMPRESSION_LEVEL: match[1] }).compressionLevel;
}

async function generate(dir: string, sizes: Size[]): Promise<BenchData> {
  process.stderr.write("bench: generating CSVs and their client-side gzips…\n");
  const make = (name: string, bytes: number, seed: number): GeneratedCsv => writeCsvFile(join(dir, name), bytes, seed);
  const generated = [];
  for (const s of sizes) {
    const csv = make(`orders-${s.label.replace(" ", "")}.csv`, s.bytes, s.seed);
    generated.push({ ...s, csv, gzips: await writeClientGzips(csv.path) });
  }
  const levels = (generated[1] ?? generated[0])?.csv;
  if (levels === undefined) throw new Error("no bench sizes");
  return { warmup: make("warmup.csv", 200_000, 7), sizes: generated, levels };
}

/** `npm run bench:edge`: only the read-path figures (a minute, not the 100 MB runs). */
async function edgeOnly(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-edge-"));
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const edge = await measureEdge(build, stateDir, key, join(OUT_DIR, "wrangler-edge.log"));
    const report = [`### Bench run ${new Date().toISOString().slice(0, 10)} (edge only)`, "", `${machine()}.`, "", renderEdge(edge)].join("\n");
    writeFileSync(join(OUT_DIR, "edge.md"), report);
    process.stdout.write(report);
    return edgeFailures(edge).length > 0 ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function edgeFailures(edge: EdgeResults): string[] {
  return Object.entries(edge).flatMap(([what, outcome]) => (outcome.ok ? [] : [`${what}: ${outcome.error}`]));
}

async function main(): Promise<number> {
  if (options().edge) return edgeOnly();
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-"));
  let server: RunningServer | null = null;
  let inspector: Inspector | null = null;
  const interrupted = async (signal: NodeJS.Signals) => {
    process.stderr.write(`bench: ${signal}, stopping the server\n`);
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const data = await generate(work, chosenSizes());
    const level = compressionLevel();
    const levelsLabel = `${(data.levels.bytes / MB).toFixed(0)} MB`;
    process.stderr.write("bench: compression levels and the CSV scanner in Node…\n");
    const ingestOnly = options().ingest;
    const levels = ingestOnly ? skipped<LevelResult[]>("--ingest") : await attempt("compression levels", async () => measureLevels(data.levels.path));
    const scanner = ingestOnly ? skipped<ScannerResult>("--ingest") : await attempt("CSV scanner", async () => measureScanner(data.levels.path));
    process.stderr.write("bench: migrations, key, bundle, wrangler dev…\n");
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    process.stderr.write(`bench: serving on ${server.origin} (worker workerd pid ${server.workerPid()}, log ${relative(PROJECT_ROOT, logFile)})\n`);
    inspector = await Inspector.connect(server.inspectorPort).catch((error: unknown) => {
      process.stderr.write(`bench: no isolate heap figures: ${errorText(error)}\n`);
      return null;
    });
    const client = { origin: server.origin, key, log: new ServerLog(logFile) };
    const probes = { worker: server.workerPid, proxy: server.proxyPid, inspector };
    if (ingestOnly) {
      const measured = emptyMeasured();
      await measureIngest(client, probes, data, measured);
      const report = renderIngestReport({ date: new Date().toISOString().slice(0, 10), machine: machine(), ...measured });
      writeFileSync(join(OUT_DIR, "ingest.md"), report);
      process.stdout.write(report);
      const failed = ingestFailures(measured);
      if (failed.length > 0) process.stderr.write(`bench: ${failed.length} measurement(s) failed:\n${failed.map((f) => `  - ${f}`).join("\n")}\n`);
      return failed.length > 0 ? 1 : 0;
    }
    const measured = await measureAll(client, probes, data);
    const results: BenchResults = {
      date: new Date().toISOString().slice(0, 10),
      machine: machine(),
      compressionLevel: level,
      ...measured,
      levels: { label: `SegmentCompressor on the ${levelsLabel} CSV; Node ${process.version} in this process, median of 3`, results: levels },
      scanner: { label: `${levelsLabel} CSV in 64 KiB chunks, Node ${process.version}`, outcome: scanner },
    };
    inspector?.close();
    inspector = null;
    await server.stop();
    server = null;
    process.stderr.write("bench: edge read path (two more wrangler dev runs)…\n");
    const edge = await measureEdge(build, stateDir, key, join(OUT_DIR, "wrangler-edge.log")).catch(
      (error: unknown): EdgeResults => ({ d1: { ok: false, error: errorText(error) }, throughput: { ok: false, error: errorText(error) }, startup: { ok: false, error: errorText(error) } }),
    );
    const report = renderReport(results) + "\n" + renderEdge(edge);
    writeFileSync(join(OUT_DIR, "latest.md"), report);
    process.stdout.write(report);
    const failed = [...failures(results), ...edgeFailures(edge)];
    if (failed.length > 0) {
      process.stderr.write(`bench: ${failed.length} measurement(s) failed:\n${failed.map((f) => `  - ${f}`).join("\n")}\n`);
      return 1;
    }
    return 0;
  } finally {
    inspector?.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${errorText(error)}\n`);
    process.exit(1);
  },
);
