// `npm run bench:webhooks`: webhook delivery on a local `wrangler dev` with its real local queue
// (docs/performance.md "Webhooks"). A receiver on 127.0.0.1 verifies every delivery with the
// standardwebhooks package and notes when it arrived. Figures: the time from an append's answer
// to its delivery, p50 and p95, for one writer appending every 1.5 s, then while 20 writers
// append for BENCH_WEBHOOKS_SECONDS (default 60); and an outage: the receiver answers 500 for BENCH_OUTAGE_SECONDS (default 60) while a
// writer appends every second, then recovers: how long until every event of the outage is
// delivered, and how many arrived more than once (with the same webhook-id).
// BENCH_WEBHOOKS_BATCH=N sets the consumer's max_batch_size in the bench's copy of wrangler.toml,
// a what-if for the deployed max_concurrency that the local queue lacks. BENCH_WEBHOOKS_WRITERS=N
// (default 20, the figure of record) is a what-if too: how the latency moves with the writers'
// share of the one local isolate. BENCH_WEBHOOKS_PROFILE=FILE
// records a CPU profile of the worker's isolate while the writers run (FILE.cpuprofile, for
// DevTools) and prints where its time went; the profiler slows the isolate, so such a run's
// figures are not the ones of record.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { Inspector, profileSummary } from "./bench/heap.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { machineLine, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
/** Writers appending at once; 20 is the figure of record. */
const WRITERS = Number(process.env.BENCH_WEBHOOKS_WRITERS ?? "20") || 20;
/** The lone writer's appends, 1.5 s apart: the pipeline's own latency, the worker otherwise idle. */
const ALONE_APPENDS = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** The receiver: 2xx unless `failing`; every accepted delivery verified and noted by version. */
class Receiver {
  failing = false;
  secret = "";
  /** version → when its first accepted delivery arrived (performance.now()). */
  readonly firstArrival = new Map<string, number>();
  /** webhook-id → accepted deliveries of it. */
  readonly accepted = new Map<string, number>();
  refused = 0;
  private server: Server | null = null;

  async listen(port: number): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (this.failing) {
          this.refused++;
          response.writeHead(500).end();
          return;
        }
        const at = performance.now();
        const body = new Webhook(this.secret).verify(Buffer.concat(chunks).toString("utf8"), request.headers as Record<string, string>) as { data: { version: string | null } };
        const id = String(request.headers["webhook-id"]);
        this.accepted.set(id, (this.accepted.get(id) ?? 0) + 1);
        if (body.data.version !== null && !this.firstArrival.has(body.data.version)) this.firstArrival.set(body.data.version, at);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    return `http://127.0.0.1:${port}/`;
  }

  close(): void {
    this.server?.close();
  }

  duplicates(): number {
    return [...this.accepted.values()].reduce((n, count) => n + count - 1, 0);
  }
}

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

async function main(): Promise<number> {
  const seconds = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? "60");
  const outageSeconds = Number(process.env.BENCH_OUTAGE_SECONDS ?? "60");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-webhooks-"));
  let server: RunningServer | null = null;
  const receiver = new Receiver();
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const stateDir = join(work, "state");
    const key: SigningKey = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const batch = process.env.BENCH_WEBHOOKS_BATCH;
    if (batch) {
      // A what-if, never the figure of record: a local queue hands its consumer one batch at a
      // time (no max_concurrency), so a larger batch stands in for the deployed concurrency.
      const config = join(build.dir, "wrangler.toml");
      const toml = readFileSync(config, "utf8");
      const changed = toml.replace(/(queue = "pubset-webhooks"\nmax_batch_size = )\d+/, `$1${Number(batch)}`);
      if (changed === toml) throw new Error("BENCH_WEBHOOKS_BATCH: no max_batch_size for pubset-webhooks in wrangler.toml");
      writeFileSync(config, changed);
    }
    const port = Number(process.env.BENCH_PORT ?? "0") || (await freePort());
    const inspector = Number(process.env.BENCH_INSPECTOR_PORT ?? "0") || undefined;
    const receiverPort = Number(process.env.BENCH_RECEIVER_PORT ?? "0") || (await freePort());
    server = await startServer(build, stateDir, port, join(OUT_DIR, "wrangler-webhooks.log"), { WEBHOOKS_ALLOW_LOCALHOST: "true" }, inspector);
    const client = new PubsetClient({ url: server.origin, key, retry: { baseDelayMs: 50 } });
    const hook = await client.webhooks.create({ url: await receiver.listen(receiverPort) });
    receiver.secret = hook.secret;
    const dataset = await client.create({ name: "bench webhooks" }, "writer,n\n");

    process.stderr.write("bench webhooks: one writer, an append every 1.5 s…\n");
    const alone = new Map<string, number>();
    for (let n = 0; n < ALONE_APPENDS; n++) {
      const { version } = await client.append(dataset.id, `alone,${n}\n`);
      alone.set(version, performance.now());
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    await until(() => [...alone.keys()].every((v) => receiver.firstArrival.has(v)), 60_000);
    const aloneLatencies = [...alone].flatMap(([version, at]) => {
      const arrived = receiver.firstArrival.get(version);
      return arrived === undefined ? [] : [Math.max(0, arrived - at) / 1000];
    });

    process.stderr.write(`bench webhooks: ${WRITERS} writers for ${seconds} s…\n`);
    // The receiver shares this process with the writers: its event-loop delay shows whether a
    // late delivery waited here rather than in the worker.
    const profileFile = process.env.BENCH_WEBHOOKS_PROFILE;
    const profiler = profileFile ? await Inspector.connect(server.inspectorPort) : null;
    await profiler?.startProfiling();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const answered = new Map<string, number>();
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let n = 0; performance.now() < deadline; n++) {
          const { version } = await client.append(dataset.id, `${w},${n}\n`);
          answered.set(version, performance.now());
        }
      }),
    );
    lag.disable();
    if (profiler && profileFile) {
      const profile = await profiler.stopProfiling();
      profiler.close();
      writeFileSync(`${profileFile}.cpuprofile`, JSON.stringify(profile));
      const summary = profileSummary(profile);
      process.stderr.write(`bench webhooks: CPU profile of the writers' ${summary.seconds.toFixed(1)} s: idle ${(summary.idle * 100).toFixed(1)} %; self time, largest first:\n`);
      for (const row of summary.rows) process.stderr.write(`  ${String(row.ms).padStart(7)} ms ${(row.share * 100).toFixed(1).padStart(5)} %  ${row.frame}\n`);
    }
    await until(() => [...answered.keys()].every((v) => receiver.firstArrival.has(v)), 120_000);
    const latencies = [...answered].flatMap(([version, at]) => {
      const arrived = receiver.firstArrival.get(version);
      return arrived === undefined ? [] : [Math.max(0, arrived - at) / 1000];
    });
    const missing = answered.size - latencies.length;

    process.stderr.write(`bench webhooks: the receiver answers 500 for ${outageSeconds} s…\n`);
    receiver.failing = true;
    const duringOutage: string[] = [];
    const outageEnd = performance.now() + outageSeconds * 1000;
    for (let n = 0; performance.now() < outageEnd; n++) {
      duringOutage.push((await client.append(dataset.id, `outage,${n}\n`)).version);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const duplicatesBefore = receiver.duplicates();
    receiver.failing = false;
    const recovered = performance.now();
    process.stderr.write("bench webhooks: recovered; waiting for the outage's events…\n");
    const caughtUp = await until(() => duringOutage.every((v) => receiver.firstArrival.has(v)), 20 * 60_000);
    const recoverySeconds = (performance.now() - recovered) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 5000));

    const ms = (s: number) => `${Math.round(s * 1000)} ms`;
    const report = [
      "### Webhooks",
      "",
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:webhooks\` (BENCH_WEBHOOKS_SECONDS=${seconds}, BENCH_OUTAGE_SECONDS=${outageSeconds}${batch ? `, BENCH_WEBHOOKS_BATCH=${batch}: a what-if` : ""}).`,
      "",
      "| figure | measured |",
      "|---|---|",
      `| one writer, an append every 1.5 s: from the answer to its delivery, p50 / p95 | ${ms(percentile(aloneLatencies, 50))} / **${ms(percentile(aloneLatencies, 95))}** (${alone.size} appends, ${alone.size - aloneLatencies.length} not delivered) |`,
      `| appends by ${WRITERS} writers in ${seconds} s, each delivered | ${answered.size} (not delivered within 2 min: ${missing}) |`,
      `| from an append's answer to its delivery, p50 / p95 | ${ms(percentile(latencies, 50))} / **${ms(percentile(latencies, 95))}** (goal p95 ≤ 2 s) |`,
      `| this process's event-loop delay while the writers ran (the receiver's), p99 / max | ${Math.round(lag.percentile(99) / 1e6)} ms / ${Math.round(lag.max / 1e6)} ms |`,
      `| events appended during a ${outageSeconds} s outage (500s) | ${duringOutage.length}; ${receiver.refused} attempts refused |`,
      `| from the receiver's recovery until every one was delivered | ${caughtUp ? `**${recoverySeconds.toFixed(1)} s**` : `not within 20 min (${recoverySeconds.toFixed(0)} s)`} |`,
      `| deliveries that arrived more than once (same webhook-id), whole run | ${receiver.duplicates()} (${duplicatesBefore} before the outage ended) |`,
      "",
    ].join("\n");
    writeFileSync(join(OUT_DIR, "webhooks.md"), report);
    process.stdout.write(report);
    return missing === 0 && caughtUp ? 0 : 1;
  } finally {
    receiver.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench webhooks", main);
