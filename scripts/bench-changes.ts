// `npm run bench:changes`: the change feed on a local `wrangler dev`. Two figures
// (docs/performance.md "Change feed"): what an idle `wait=25` long-poll costs in D1 reads
// (X-Bench-D1, the bench entry's count), and how long after an append's answer a follower
// waiting on the feed receives its event, p50 and p95: one writer appending every 1.5 s (the
// follower idle between events), then 20 writers appending at once, each for
// BENCH_CHANGES_SECONDS (default 60). Ports: BENCH_PORT and BENCH_INSPECTOR_PORT, else free ones.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { signedHeaders } from "./bench/signing.ts";
import { machineLine, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");
const WRITERS = 20;
/** The lone writer's pause between appends: the follower is idle, waiting, when each one lands. */
const SPACING_MS = 1500;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

interface Page {
  results: Array<{ type: string; id: string; version: string | null }>;
  next: string;
}

async function feed(origin: string, key: SigningKey, query: string): Promise<{ page: Page; d1: number }> {
  const url = `${origin}/v1/changes${query}`;
  const response = await fetch(url, { headers: await signedHeaders("GET", url, key) });
  if (response.status !== 200) throw new Error(`GET /v1/changes${query}: ${response.status} ${await response.text()}`);
  const counted = /queries=(\d+)/.exec(response.headers.get("x-bench-d1") ?? "");
  return { page: (await response.json()) as Page, d1: counted ? Number(counted[1]) : Number.NaN };
}

async function idleCost(origin: string, key: SigningKey): Promise<{ seconds: number; reads: number }> {
  const { page } = await feed(origin, key, "?since=now");
  const started = performance.now();
  const { page: idle, d1 } = await feed(origin, key, `?since=${page.next}&wait=25`);
  if (idle.results.length > 0) throw new Error("the idle wait saw an event");
  return { seconds: (performance.now() - started) / 1000, reads: d1 };
}

interface Run {
  latencies: number[];
  appends: number;
  missing: number;
}

/** `writers` append for `seconds`, each pausing `pauseMs` after each answer; one follower waits on the feed. */
async function latency(origin: string, key: SigningKey, writers: number, seconds: number, pauseMs: number): Promise<Run> {
  const client = new PubsetClient({ url: origin, key, retry: { baseDelayMs: 50 } });
  const dataset = await client.create({ name: "bench changes" }, "writer,n\n");
  const answered = new Map<string, number>();
  const received = new Map<string, number>();
  let cursor = (await feed(origin, key, "?since=now")).page.next;
  let writing = true;
  const follower = (async () => {
    while (writing || received.size < answered.size) {
      const { page } = await feed(origin, key, `?since=${cursor}&wait=25&limit=1000`);
      const at = performance.now();
      for (const event of page.results) if (event.id === dataset.id && event.version !== null) received.set(event.version, at);
      cursor = page.next;
      if (!writing && page.results.length === 0) break;
    }
  })();
  const deadline = performance.now() + seconds * 1000;
  const appenders = Array.from({ length: writers }, async (_, w) => {
    for (let n = 0; performance.now() < deadline; n++) {
      const { version } = await client.append(dataset.id, `${w},${n}\n`);
      answered.set(version, performance.now());
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });
  await Promise.all(appenders);
  writing = false;
  await follower;
  const latencies: number[] = [];
  for (const [version, at] of answered) {
    const seen = received.get(version);
    if (seen !== undefined) latencies.push(Math.max(0, seen - at) / 1000);
  }
  return { latencies, appends: answered.size, missing: answered.size - latencies.length };
}

function render(idle: { seconds: number; reads: number }, alone: Run, run: Run, seconds: number): string {
  const ms = (s: number) => `${Math.round(s * 1000)} ms`;
  return [
    "### Change feed",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machineLine()}; \`npm run bench:changes\` (BENCH_CHANGES_SECONDS=${seconds}).`,
    "",
    "| figure | measured |",
    "|---|---|",
    `| an idle \`wait=25\` long-poll: D1 reads (X-Bench-D1) over its ${idle.seconds.toFixed(1)} s | ${idle.reads} = **${(idle.reads / idle.seconds).toFixed(2)} per second** |`,
    `| one writer, an append every ${SPACING_MS} ms for ${seconds} s: from the answer to the event reaching a waiting follower, p50 / p95 | ${ms(percentile(alone.latencies, 50))} / ${ms(percentile(alone.latencies, 95))} (${alone.appends} appends, ${alone.missing} events missing) |`,
    `| appends by ${WRITERS} writers in ${seconds} s | ${run.appends} (events missing from the feed: ${run.missing}) |`,
    `| from an append's answer to its event reaching a waiting follower, p50 / p95 | ${ms(percentile(run.latencies, 50))} / **${ms(percentile(run.latencies, 95))}** |`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const seconds = Number(process.env.BENCH_CHANGES_SECONDS ?? "60");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-changes-"));
  let server: RunningServer | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const port = Number(process.env.BENCH_PORT ?? "0") || (await freePort());
    const inspector = Number(process.env.BENCH_INSPECTOR_PORT ?? "0") || undefined;
    server = await startServer(build, stateDir, port, join(OUT_DIR, "wrangler-changes.log"), {}, inspector);
    process.stderr.write("bench changes: an idle wait=25…\n");
    const idle = await idleCost(server.origin, key);
    process.stderr.write(`bench changes: one writer for ${seconds} s, one follower…\n`);
    const alone = await latency(server.origin, key, 1, seconds, SPACING_MS);
    process.stderr.write(`bench changes: ${WRITERS} writers for ${seconds} s, one follower…\n`);
    const run = await latency(server.origin, key, WRITERS, seconds, 0);
    const report = render(idle, alone, run, seconds);
    writeFileSync(join(OUT_DIR, "changes.md"), report);
    process.stdout.write(report);
    return run.missing + alone.missing === 0 ? 0 : 1;
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench changes", main);
