// `npm run bench` (second part; alone: `npm run bench:storage`): the storage figures
// from a local worker — write amplification and segments per version over one-row appends to a
// 100 MB dataset, D1 bytes per version for a narrow and a wide header, one-row append latency
// on 1 MB and 100 MB datasets. BENCH_APPENDS (default 1000) sets the number of appends.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDataset, type Client } from "./bench/api.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { ServerLog } from "./bench/server-log.ts";
import { measureConcurrency, measureStorage, p50, p95, type ConcurrencyFigures, type StorageFigures } from "./bench/storage.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { machineLine, MB, runBenchPart } from "./bench/stats.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");

function wideCsv(path: string, columns: number): string {
  const header = Array.from({ length: columns }, (_, i) => `measurement_${String(i).padStart(4, "0")}_of_the_station`).join(",");
  const row = Array.from({ length: columns }, (_, i) => String(i)).join(",");
  writeFileSync(path, `${header}\n${row}\n`);
  return path;
}

function renderConcurrency(c: ConcurrencyFigures): string {
  const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
  const refused = Object.entries(c.refused).map(([status, n]) => `${n} × ${status}`).join(", ") || "none";
  return [
    `### Concurrent appends: ${c.writers} writers × ${c.appendsEach} one-row appends to one dataset, all at once`,
    "",
    "| figure | measured | goal |",
    "|---|---|---|",
    `| acknowledged (201) | ${c.acknowledged} of ${c.writers * c.appendsEach} | all |`,
    `| refused | ${refused} | no 409 |`,
    `| latency per append, p50 / p95 | ${ms(p50(c.latency))} / **${ms(p95(c.latency))}** | p95 ≤ 1 s |`,
    `| wall time, appends per second | ${c.wallSeconds.toFixed(1)} s, ${(c.acknowledged / c.wallSeconds).toFixed(0)}/s | |`,
    `| versions form one linear chain | ${c.linearChain ? "yes" : "**no**"} | yes |`,
    "",
  ].join("\n");
}

function render(f: StorageFigures, machine: string): string {
  const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
  const ratio = p50(f.latency.large) / p50(f.latency.small);
  return [
    `### Storage: ${f.appends} one-row appends to the 100 MB dataset`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; \`npm run bench:storage\`.`,
    "",
    "| figure | measured | goal |",
    "|---|---|---|",
    `| R2 bytes written per appended byte (compactions included) | **${(f.r2BytesWritten / f.appendedBytes).toFixed(2)}×** (${f.r2BytesWritten.toLocaleString("en")} B for ${f.appendedBytes.toLocaleString("en")} B) | ≤ 8× |`,
    `| segments in the latest version after the appends (most seen) | **${f.segmentsAfter}** (${f.maxSegmentsSeen}) | ≤ 16 |`,
    `| D1 bytes of the last version's row + its segment list (${f.segmentsAfter} segments), 10-column header | ${f.versionRowBytes.narrow.toLocaleString("en")} B | independent of the header |`,
    `| the same for a ${f.versionRowBytes.wideColumns}-column header (1 segment) | ${f.versionRowBytes.wide.toLocaleString("en")} B | |`,
    `| one-row append, p50 / p95, 1 MB dataset (${f.latency.small.length} samples) | ${ms(p50(f.latency.small))} / ${ms(p95(f.latency.small))} | |`,
    `| one-row append, p50 / p95, 100 MB dataset (${f.latency.large.length} samples) | ${ms(p50(f.latency.large))} / ${ms(p95(f.latency.large))} | |`,
    `| append latency ratio 100 MB / 1 MB (p50) | **${ratio.toFixed(2)}** | ≤ 1.2 |`,
    `| \`.gz\` of the last version gunzips to the upload plus every appended row | ${f.downloadChecked ? "yes" : "**no**"} | yes |`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const appends = Number(process.env.BENCH_APPENDS ?? "1000");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-storage-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write("bench storage: generating CSVs…\n");
    const large = writeCsvFile(join(work, "large.csv"), 100 * MB, 100);
    const small = writeCsvFile(join(work, "small.csv"), 1 * MB, 1);
    const wide = wideCsv(join(work, "wide.csv"), 2000);
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-storage.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    const client: Client = { origin: server.origin, key, log: new ServerLog(logFile) };
    process.stderr.write("bench storage: creating the datasets…\n");
    const largeCreated = await createDataset(client, large.path, "storage large");
    const smallCreated = await createDataset(client, small.path, "storage small");
    const wideCreated = await createDataset(client, wide, "storage wide");
    // BENCH_APPENDS=0 measures only the concurrent appenders (a quick re-run of that table).
    const figures = appends > 0 ? await measureStorage(client, stateDir, { created: largeCreated, csvPath: large.path }, smallCreated, wideCreated, appends) : null;
    process.stderr.write("bench storage: concurrent appenders…\n");
    const target = await createDataset(client, small.path, "storage concurrent");
    const concurrency = await measureConcurrency(client, stateDir, target, 50, 20);
    const machine = machineLine();
    const report = (figures ? render(figures, machine) + "\n" : `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}.\n\n`) + renderConcurrency(concurrency);
    writeFileSync(join(OUT_DIR, "storage.md"), report);
    process.stdout.write(report);
    return (figures?.downloadChecked ?? true) && concurrency.linearChain ? 0 : 1;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench storage", main);
