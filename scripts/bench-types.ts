// `npm run bench` (third part; alone: `npm run bench:types`): the column-type figures
// from a local worker — ingest throughput of a mixed-type CSV with inference against the same
// run's ingest without it, one-row append latency on typed 1 MB and 100 MB datasets, and a
// schema-only PUT on the 100 MB dataset: its time and the R2 bytes it wrote. BENCH_TYPES_MB
// (default 100) sets the large size; BENCH_TYPES_APPENDS (default 40) the appends per dataset.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendRows, benchIngest, createDataset, updateCollection, type Client } from "./bench/api.ts";
import { csvRows, writeCsvFile } from "./bench/csv-gen.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { ServerLog } from "./bench/server-log.ts";
import { measureInferenceCpu } from "./bench/scanner.ts";
import { findDir, p50, p95, treeBytes } from "./bench/storage.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { machineLine, MB, median, runBenchPart } from "./bench/stats.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
const RUNS = 3;

interface TypesFigures {
  megabytes: number;
  columns: string[];
  ingest: { off: number[]; infer: number[] };
  /** CPU seconds of the scan in Node, without and with inference. */
  cpu: { bytes: number; plain: number; typed: number };
  appends: { small: number[]; large: number[] };
  schemaPut: { seconds: number; r2Bytes: number; typedAs: string };
}

async function measure(client: Client, stateDir: string, large: string, small: string, megabytes: number, appends: number): Promise<TypesFigures> {
  const ingest = { off: [] as number[], infer: [] as number[] };
  let columns: string[] = [];
  // Alternated, so a change in the machine's load falls on both paths alike.
  for (let run = 0; run < RUNS; run++) {
    for (const typing of ["off", "infer"] as const) {
      process.stderr.write(`bench types: ingest ${megabytes} MB, typing ${typing}, run ${run + 1}/${RUNS}…\n`);
      const result = await benchIngest(client, typing, large);
      ingest[typing].push(result.inputBytes / MB / result.seconds);
      if (typing === "infer") columns = result.columns;
    }
  }
  process.stderr.write("bench types: creating the typed datasets…\n");
  const largeCreated = await createDataset(client, large, "types large");
  const smallCreated = await createDataset(client, small, "types small");
  const latency = { small: [] as number[], large: [] as number[] };
  for (let i = 0; i < appends; i++) {
    latency.large.push((await appendRows(client, largeCreated.id, csvRows(80_000 + i, 40_000_000 + i, 1))).seconds);
    latency.small.push((await appendRows(client, smallCreated.id, csvRows(90_000 + i, 50_000_000 + i, 1))).seconds);
  }
  process.stderr.write("bench types: schema-only PUT on the large dataset…\n");
  const blobs = join(findDir(stateDir, "r2"), "pubset-content", "blobs");
  // Let the appends' compactions (after their answers) finish before counting bytes.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const before = treeBytes(blobs);
  const declared = { schema: { fields: [{ name: "quantity", type: "number" }] } };
  const put = await updateCollection(client, largeCreated.id, declared);
  const r2Bytes = treeBytes(blobs) - before;
  process.stderr.write("bench types: CPU time of the scan with and without inference, in Node…\n");
  const cpu = measureInferenceCpu(large);
  return { megabytes, columns, ingest, cpu, appends: latency, schemaPut: { seconds: put.seconds, r2Bytes, typedAs: "quantity: integer → number" } };
}

function render(f: TypesFigures, machine: string): string {
  const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
  const off = median(f.ingest.off);
  const infer = median(f.ingest.infer);
  const ratio = p50(f.appends.large) / p50(f.appends.small);
  const cpuMs = (seconds: number) => `${((seconds / (f.cpu.bytes / MB)) * 1000).toFixed(2)} ms`;
  return [
    `### Column types: a ${f.megabytes} MB mixed-type CSV`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; \`npm run bench:types\`. Inferred: ${f.columns.join(", ")}.`,
    "",
    "| figure | measured | goal |",
    "|---|---|---|",
    `| ingest without inference (scan, compress, R2), median of ${f.ingest.off.length} | ${off.toFixed(1)} MB/s (${f.ingest.off.map((v) => v.toFixed(1)).join(", ")}) | baseline |`,
    `| ingest with inference over every row, median of ${f.ingest.infer.length} | ${infer.toFixed(1)} MB/s (${f.ingest.infer.map((v) => v.toFixed(1)).join(", ")}) | |`,
    `| cost of inference, from those medians (wall time; noisy on a shared machine) | ${((1 - infer / off) * 100).toFixed(1)} % of ingest throughput | ≤ 10 % |`,
    `| CPU the scan takes in Node, without / with inference (fastest of 5 each) | ${cpuMs(f.cpu.plain)} / ${cpuMs(f.cpu.typed)} per MB | |`,
    `| cost of inference: CPU it adds, against the worker's ingest time per MB without it | **${((((f.cpu.typed - f.cpu.plain) / (f.cpu.bytes / MB)) * off) * 100).toFixed(1)} %** | ≤ 10 % |`,
    `| one-row append held to the schema, p50 / p95, 1 MB dataset (${f.appends.small.length}) | ${ms(p50(f.appends.small))} / ${ms(p95(f.appends.small))} | |`,
    `| the same, ${f.megabytes} MB dataset (${f.appends.large.length}) | ${ms(p50(f.appends.large))} / ${ms(p95(f.appends.large))} | |`,
    `| append latency ratio ${f.megabytes} MB / 1 MB (p50), typed | **${ratio.toFixed(2)}** | ≤ 1.2 |`,
    `| schema-only PUT on the ${f.megabytes} MB dataset (${f.schemaPut.typedAs}), every row checked | **${f.schemaPut.seconds.toFixed(2)} s** | |`,
    `| R2 bytes written by that PUT | **${f.schemaPut.r2Bytes.toLocaleString("en")} B** | 0 |`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const megabytes = Number(process.env.BENCH_TYPES_MB ?? "100");
  const appends = Number(process.env.BENCH_TYPES_APPENDS ?? "40");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-types-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write("bench types: generating CSVs…\n");
    const large = writeCsvFile(join(work, "large.csv"), megabytes * MB, 100).path;
    const small = writeCsvFile(join(work, "small.csv"), 1 * MB, 1).path;
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-types.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    const client: Client = { origin: server.origin, key, log: new ServerLog(logFile) };
    const figures = await measure(client, stateDir, large, small, megabytes, appends);
    const machine = machineLine();
    const report = render(figures, machine);
    writeFileSync(join(OUT_DIR, "types.md"), report);
    process.stdout.write(report);
    return figures.schemaPut.r2Bytes === 0 ? 0 : 1;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench types", main);
