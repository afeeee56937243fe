// `npm run bench` (fifth part; alone: `npm run bench:appends`): appends right after a large
// resumable upload. A generated CSV (300 MiB; BENCH_APPEND_MIB for a quicker
// run) is created as a resumable upload, then 10 small appends follow it, each timed from the
// client; the same 10 appends on a small dataset are the baseline. Goal: p95 after the upload
// ≤ 1.5 × p95 on the small dataset, so work after a commit never lands on an append's answer.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { csvRows, HEADER, writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
const APPENDS = 10;
const ROWS_PER_APPEND = 200;
/** Between appends, as a client that appends as rows arrive: the window then spans the work after commits. */
const PAUSE_MS = 300;

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function timedAppends(client: PubsetClient, id: string, seed: number): Promise<number[]> {
  const seconds: number[] = [];
  for (let i = 0; i < APPENDS; i++) {
    const rows = new TextDecoder().decode(csvRows(seed + i, 10_000_000 + i * ROWS_PER_APPEND, ROWS_PER_APPEND));
    const started = performance.now();
    await client.append(id, rows);
    seconds.push((performance.now() - started) / 1000);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return seconds;
}

/** The consumer's compaction of `datasetId`, as the server logged it: when it ended, if it did. */
async function compactionLogged(logFile: string, datasetId: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (readFileSync(logFile, "utf8").split("\n").some((line) => line.includes('"event":"compaction"') && line.includes(datasetId))) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

function render(mebibytes: number, uploadSeconds: number, afterUpload: number[], small: number[], compaction: string, machine: string): string {
  const ms = (s: number) => `${Math.round(s * 1000)} ms`;
  const p95After = percentile(afterUpload, 95);
  const p95Small = percentile(small, 95);
  const ratio = p95After / p95Small;
  return [
    `### Appends after a ${mebibytes} MiB resumable upload: ${APPENDS} appends of ${ROWS_PER_APPEND} rows each`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; \`npm run bench:appends\` (BENCH_APPEND_MIB=${mebibytes}). Times from the client, request to answer.`,
    "",
    "| figure | measured |",
    "|---|---|",
    `| the ${mebibytes} MiB resumable create | ${uploadSeconds.toFixed(1)} s |`,
    `| appends after it, each (${PAUSE_MS} ms apart) | ${afterUpload.map(ms).join(", ")} |`,
    `| the large dataset's compaction, in the queue consumer | ${compaction} |`,
    `| appends to a one-row dataset, each | ${small.map(ms).join(", ")} |`,
    `| p95 after the upload / p95 on the small dataset | ${ms(p95After)} / ${ms(p95Small)} = **${ratio.toFixed(2)}** (goal ≤ 1.5) |`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const mebibytes = Number(process.env.BENCH_APPEND_MIB ?? "300");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-appends-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write(`bench appends: generating a ${mebibytes} MiB CSV…\n`);
    const csv = writeCsvFile(join(work, "upload.csv"), mebibytes * MIB, 27);
    const stateDir = join(work, "state");
    const key: SigningKey = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-appends.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    // Small appends go in one request each, as the client and the CLI send them.
    const appender = new PubsetClient({ url: server.origin, key, retry: { baseDelayMs: 50 } });
    // The baseline first, on a server with no work pending.
    process.stderr.write("bench appends: appends to a small dataset…\n");
    const small = await appender.create({ name: "bench appends: small" }, HEADER + new TextDecoder().decode(csvRows(2, 1, 1)));
    const smallTimes = await timedAppends(appender, small.id, 100);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    process.stderr.write("bench appends: the resumable create…\n");
    const uploader = new PubsetClient({ url: server.origin, key, resumableThreshold: 0, retry: { baseDelayMs: 50 } });
    const started = performance.now();
    const large = await uploader.create({ name: "bench appends: large" }, { path: csv.path }, { fileName: "large.csv" });
    const uploadSeconds = (performance.now() - started) / 1000;
    // Right after it: whatever the upload and these appends leave to do runs meanwhile.
    process.stderr.write("bench appends: appends after it…\n");
    const appendsStarted = performance.now();
    const afterUpload = await timedAppends(appender, large.id, 1);
    const windowSeconds = (performance.now() - appendsStarted) / 1000;
    const compacted = await compactionLogged(logFile, large.id, 60_000);
    const compactedAfter = (performance.now() - appendsStarted) / 1000;
    const compaction = compacted ? `logged ${compactedAfter.toFixed(1)} s after the first append; the appends spanned ${windowSeconds.toFixed(1)} s` : "not logged within 60 s";
    const report = render(mebibytes, uploadSeconds, afterUpload, smallTimes, compaction, machineLine());
    writeFileSync(join(OUT_DIR, "appends.md"), report);
    process.stdout.write(report);
    return 0;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench appends", main);
