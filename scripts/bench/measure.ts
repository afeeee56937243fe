// The measurements against a running worker, in an order that keeps them fair: warm-up first,
// creates before their CompressionStream baselines (so the first 100 MB create meets the
// least-grown heap), appends to the small and large dataset interleaved.
import { appendRows, benchBaseline, createDataset, download, fileSha256, readRows, type Client, type Created } from "./api.ts";
import type { ClientGzips } from "./client-gzip.ts";
import { csvRows, type GeneratedCsv } from "./csv-gen.ts";
import { LEVELS } from "./levels.ts";
import {
  attempt,
  skipped,
  type AppendResult,
  type BenchResults,
  type DownloadResult,
  type MemoryResult,
  type MemoryRow,
  type Outcome,
  type RowsResult,
  type Timing,
  type WorkerdLevel,
} from "./results.ts";
import { sampleHeap, sampleLiveHeap, type Inspector } from "./heap.ts";
import { sampleRss } from "./rss.ts";
import { errorText, median, mib } from "./stats.ts";

export interface BenchSize {
  label: string;
  csv: GeneratedCsv;
  /** The same CSV compressed by a client: our parted gzip and a plain one. */
  gzips: ClientGzips;
  runs: number;
  /** Sample workerd's RSS around each of this size's requests. */
  sampleMemory: boolean;
}

export interface BenchData {
  warmup: GeneratedCsv;
  /** Smallest first; appends use the first and the last. */
  sizes: BenchSize[];
  /** The CSV the compression levels are measured on (in Node and in workerd). */
  levels: GeneratedCsv;
}

const APPEND_ROWS = 1000;
const APPEND_RUNS = 5;
const SETTLE_MS = 2000;

type Measured = Pick<
  BenchResults,
  "ingest" | "memory" | "liveMemory" | "liveMemoryParted" | "appendBytes" | "append" | "download" | "rows" | "workerdLevels"
>;

const ROWS_LIMIT = 100;
const ROWS_RUNS = 5;
const LEVEL_RUNS = 3;

export interface Probes {
  /** The workerd running pubset. */
  worker(): number;
  /** wrangler dev's proxy workerd, in front of it (local only). */
  proxy(): number | null;
  /** The worker's isolate over DevTools; null when it could not be reached. */
  inspector: Inspector | null;
}

interface Sampled<T> {
  outcome: Outcome<T>;
  memory: MemoryResult;
}

async function withRss<T>(probes: Probes, what: string, run: () => Promise<T>): Promise<Sampled<T>> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const worker = sampleRss(probes.worker());
  const proxyPid = probes.proxy();
  const proxy = proxyPid === null ? null : sampleRss(proxyPid);
  const heap = probes.inspector === null ? null : sampleHeap(probes.inspector);
  const outcome = await attempt(what, run);
  const memory = { worker: worker.stop(), proxy: proxy?.stop() ?? null, heap: (await heap?.stop()) ?? null };
  return { outcome, memory };
}

function memoryOutcome(sampled: Sampled<unknown>): Outcome<MemoryResult> {
  if (sampled.outcome.ok) return { ok: true, value: sampled.memory };
  return { ok: false, error: `${sampled.outcome.error} (worker RSS growth before it failed: ${mib(sampled.memory.worker.growth)})` };
}

interface RssLog {
  probes: Probes;
  rows: MemoryRow[];
  goal: boolean;
}

/** `runs` runs in a row, stopping at the first failure; each RSS-sampled when `rss` is given. */
async function repeat<T extends { seconds: number }>(
  what: string,
  runs: number,
  run: () => Promise<T>,
  rss: RssLog | null,
): Promise<Outcome<{ timing: Timing; first: T }>> {
  const results: T[] = [];
  for (let i = 1; i <= runs; i++) {
    const label = runs > 1 ? `${what} #${i}` : what;
    let outcome: Outcome<T>;
    if (rss === null) outcome = await attempt(label, run);
    else {
      const sampled = await withRss(rss.probes, label, run);
      rss.rows.push({ label, outcome: memoryOutcome(sampled), goal: rss.goal });
      outcome = sampled.outcome;
    }
    if (!outcome.ok) return outcome;
    results.push(outcome.value);
  }
  const first = results[0];
  if (first === undefined) return skipped("no runs");
  return { ok: true, value: { timing: { seconds: median(results.map((r) => r.seconds)), runs }, first } };
}

async function ingestOne(client: Client, size: BenchSize, probes: Probes, measured: Measured): Promise<Created | null> {
  const rss = (goal: boolean): RssLog | null => (size.sampleMemory ? { probes, rows: measured.memory, goal } : null);
  const creates = await repeat(`create ${size.label}`, size.runs, () => createDataset(client, size.csv.path, `bench ${size.label}`), rss(true));
  const gzips = await repeat(`CompressionStream('gzip') ${size.label}`, size.runs, () => benchBaseline(client, "gzip", size.csv.path), rss(false));
  const reads = await repeat(`read and discard ${size.label}`, size.runs, () => benchBaseline(client, "discard", size.csv.path), null);
  const parted = await repeat(`create parted gzip ${size.label}`, size.runs, () => createDataset(client, size.gzips.parted.path, `bench parted ${size.label}`), rss(true));
  const plain = await repeat(`create plain gzip ${size.label}`, size.runs, () => createDataset(client, size.gzips.plain.path, `bench plain ${size.label}`), rss(true));
  measured.ingest.push({
    label: size.label,
    bytes: size.csv.bytes,
    rows: size.csv.rows,
    create: creates.ok ? { ok: true, value: creates.value.timing } : creates,
    baseline: gzips.ok ? { ok: true, value: { ...gzips.value.timing, outputBytes: gzips.value.first.outputBytes } } : gzips,
    transport: reads.ok ? { ok: true, value: reads.value.timing } : reads,
    clientGzip: {
      partedBytes: size.gzips.parted.bytes,
      plainBytes: size.gzips.plain.bytes,
      parted: parted.ok ? { ok: true, value: parted.value.timing } : parted,
      plain: plain.ok ? { ok: true, value: plain.value.timing } : plain,
    },
  });
  if (size.sampleMemory) {
    measured.liveMemory = await measureLiveMemory(client, `create ${size.label}`, size.csv.path, probes);
    measured.liveMemoryParted = await measureLiveMemory(client, `create ${size.label} as our client's parted gzip`, size.gzips.parted.path, probes);
  }
  return creates.ok ? creates.value.first : null;
}

/** One more create of the same file, with the isolate's live memory read after forced GCs. */
async function measureLiveMemory(client: Client, label: string, path: string, probes: Probes): Promise<BenchResults["liveMemory"]> {
  const inspector = probes.inspector;
  if (inspector === null) return { label, outcome: skipped("no inspector connection") };
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const live = sampleLiveHeap(inspector);
  const outcome = await attempt(`${label}, live memory`, () => createDataset(client, path, `bench ${label} live`));
  const summary = await live.stop();
  if (!outcome.ok) return { label, outcome };
  if (summary.samples === 0) return { label, outcome: skipped("the inspector answered no forced-GC reading") };
  return { label, outcome: { ok: true, value: summary } };
}

async function measureAppends(client: Client, targets: Array<{ label: string; bytes: number; created: Created | null }>, measured: Measured): Promise<void> {
  const batches = Array.from({ length: APPEND_RUNS + 1 }, (_, i) => csvRows(9000 + i, 10_000_000 + i * APPEND_ROWS, APPEND_ROWS));
  measured.appendBytes = batches[1]?.length ?? 0;
  const samples = targets.map((): number[] => []);
  const errors = targets.map((t): string | null => (t.created === null ? `skipped: the ${t.label} create failed` : null));
  // Run 0 warms both paths up and is not counted; then small and large take turns.
  for (let run = 0; run <= APPEND_RUNS; run++) {
    const rows = batches[run] as Uint8Array;
    for (const [i, target] of targets.entries()) {
      if (target.created === null || errors[i] !== null) continue;
      try {
        const { seconds } = await appendRows(client, target.created.id, rows);
        if (run > 0) samples[i]?.push(seconds);
      } catch (error: unknown) {
        errors[i] = errorText(error);
        process.stderr.write(`bench: append to ${target.label} failed: ${errors[i]}\n`);
      }
    }
  }
  measured.append = targets.map((target, i): AppendResult => {
    const error = errors[i];
    return { label: `${target.label} dataset`, datasetBytes: target.bytes, seconds: error ? skipped(error) : { ok: true, value: samples[i] ?? [] } };
  });
}

async function measureDownloads(client: Client, big: { csv: GeneratedCsv; created: Created | null }, measured: Measured): Promise<void> {
  const created = big.created;
  if (created === null) {
    measured.download.gz = skipped("skipped: the 100 MB create failed");
    measured.download.csv = skipped("skipped: the 100 MB create failed");
    return;
  }
  measured.download.source = created.source;
  const expected = await fileSha256(big.csv.path);
  const fetchChecked = async (path: string, gzipFile: boolean): Promise<DownloadResult> => {
    const d = await download(client, path, big.csv.bytes, gzipFile);
    if (d.sha256 !== expected || d.decodedBytes !== big.csv.bytes) throw new Error(`${path}: the decoded content differs from the upload`);
    return d;
  };
  measured.download.gz = await attempt("download .gz", () => fetchChecked(created.source, true));
  measured.download.csv = await attempt("download .csv", () => fetchChecked(created.source.replace(/\.gz$/, ""), false));
}

/** 100-row windows at the start, middle and end of the big dataset: a deep offset should cost
 * about what the first page does, since segments are made of separately readable parts. */
async function measureRows(client: Client, created: Created | null, measured: Measured): Promise<void> {
  const labels = ["first page", "middle", "last page"];
  if (created === null) {
    measured.rows = labels.map((label): RowsResult => ({ label, offset: 0, seconds: skipped("skipped: the 100 MB create failed") }));
    return;
  }
  const probe = await attempt("rows total", () => readRows(client, created.id, 0, 1));
  if (!probe.ok) {
    measured.rows = labels.map((label): RowsResult => ({ label, offset: 0, seconds: probe }));
    return;
  }
  const total = probe.value.total;
  const offsets = [0, Math.floor(total / 2), Math.max(0, total - ROWS_LIMIT)];
  measured.rows = [];
  for (const [i, offset] of offsets.entries()) {
    const label = labels[i] ?? String(offset);
    const seconds = await attempt(`rows at ${label}`, async () => {
      const samples: number[] = [];
      for (let run = 0; run <= ROWS_RUNS; run++) {
        const page = await readRows(client, created.id, offset, ROWS_LIMIT);
        if (page.rows !== Math.min(ROWS_LIMIT, total - offset)) throw new Error(`rows at ${offset}: got ${page.rows} rows`);
        if (run > 0) samples.push(page.seconds);
      }
      return samples;
    });
    measured.rows.push({ label, offset, seconds });
  }
}

/**
 * The worker's SegmentCompressor at each level in the same workerd (bench-only
 * `POST /__bench/deflate?level=N`, which times the compression of the received body in
 * 1 MiB pushes, as Node's column does); runs take turns across levels.
 */
async function measureWorkerdLevels(client: Client, csv: GeneratedCsv, measured: Measured): Promise<void> {
  measured.workerdLevels = await attempt("compression levels in workerd", async () => {
    for (const level of LEVELS) await benchBaseline(client, { deflate: level }, csv.path);
    const samples = LEVELS.map((): number[] => []);
    const sizes = LEVELS.map(() => 0);
    for (let run = 0; run < LEVEL_RUNS; run++) {
      for (const [i, level] of LEVELS.entries()) {
        const result = await benchBaseline(client, { deflate: level }, csv.path);
        samples[i]?.push(result.seconds);
        sizes[i] = result.outputBytes;
      }
    }
    return LEVELS.map((level, i): WorkerdLevel => ({ level, seconds: median(samples[i] ?? []), inputBytes: csv.bytes, outputBytes: sizes[i] ?? 0 }));
  });
}

/** Warm-up, then every size's creates (plain CSV, parted and plain gzip) and baselines. */
export async function measureIngest(client: Client, probes: Probes, data: BenchData, measured: Measured): Promise<Array<Created | null>> {
  await createDataset(client, data.warmup.path, "bench warm-up");
  const first = data.sizes[0];
  if (first) {
    await createDataset(client, first.gzips.parted.path, "bench warm-up parted");
    await createDataset(client, first.gzips.plain.path, "bench warm-up plain");
  }
  await benchBaseline(client, "gzip", data.warmup.path);
  await benchBaseline(client, "discard", data.warmup.path);
  const created: Array<Created | null> = [];
  for (const size of data.sizes) created.push(await ingestOne(client, size, probes, measured));
  return created;
}

export function emptyMeasured(): Measured {
  return {
    ingest: [],
    memory: [],
    liveMemory: { label: "", outcome: skipped("not run") },
    liveMemoryParted: { label: "", outcome: skipped("not run") },
    appendBytes: 0,
    append: [],
    download: { source: "", gz: skipped("not run"), csv: skipped("not run") },
    rows: [],
    workerdLevels: skipped("not run"),
  };
}

export async function measureAll(client: Client, probes: Probes, data: BenchData): Promise<Measured> {
  const measured = emptyMeasured();
  const created = await measureIngest(client, probes, data, measured);
  const small = data.sizes[0];
  const big = data.sizes[data.sizes.length - 1];
  if (small === undefined || big === undefined) throw new Error("no bench sizes");
  await measureAppends(
    client,
    [
      { label: small.label, bytes: small.csv.bytes, created: created[0] ?? null },
      { label: big.label, bytes: big.csv.bytes, created: created[created.length - 1] ?? null },
    ],
    measured,
  );
  await measureDownloads(client, { csv: big.csv, created: created[created.length - 1] ?? null }, measured);
  await measureRows(client, created[created.length - 1] ?? null, measured);
  await measureWorkerdLevels(client, data.levels, measured);
  return measured;
}
