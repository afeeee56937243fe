// What one bench run measured. Every measurement is an Outcome, so a step that fails (say the
// 100 MB upload hitting a local workerd limit) is reported with its error instead of ending the run.
import type { HeapSummary } from "./heap.ts";
import type { LevelResult } from "./levels.ts";
import type { RssSummary } from "./rss.ts";
import type { ScannerResult } from "./scanner.ts";
import { errorText } from "./stats.ts";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export async function attempt<T>(what: string, run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error: unknown) {
    const message = errorText(error);
    process.stderr.write(`bench: ${what} failed: ${message}\n`);
    return { ok: false, error: message };
  }
}

export function skipped<T>(reason: string): Outcome<T> {
  return { ok: false, error: reason };
}

export interface Timing {
  /** Median over `runs`. */
  seconds: number;
  runs: number;
}

export interface IngestResult {
  label: string;
  bytes: number;
  rows: number;
  create: Outcome<Timing>;
  /** The same bytes through CompressionStream('gzip') in the same workerd. */
  baseline: Outcome<Timing & { outputBytes: number }>;
  /** The same bytes only read by the worker: what the local transport allows at most. */
  transport: Outcome<Timing>;
  /** Client-compressed uploads of the same CSV: sizes on the wire and create times. */
  clientGzip: {
    partedBytes: number;
    plainBytes: number;
    /** Our client's parted gzip, stored without recompressing. */
    parted: Outcome<Timing>;
    /** A plain gzip, inflated and compressed again (today's path for third-party gzip). */
    plain: Outcome<Timing>;
  } | null;
}

export interface MemoryResult {
  /** The workerd running pubset: what a deployed worker would hold. */
  worker: RssSummary;
  /** wrangler dev's proxy workerd, which only exists locally. */
  proxy: RssSummary | null;
  /** The worker isolate's V8 heap in use plus ArrayBuffers; null without an inspector. */
  heap: HeapSummary | null;
}

export interface MemoryRow {
  label: string;
  outcome: Outcome<MemoryResult>;
  /** Whether the 64 MiB goal applies (pubset's own requests, not the baseline). */
  goal: boolean;
}

export interface AppendResult {
  label: string;
  datasetBytes: number;
  seconds: Outcome<number[]>;
}

export interface RowsResult {
  /** Where the window starts, e.g. "first page", "last page". */
  label: string;
  offset: number;
  seconds: Outcome<number[]>;
}

export interface DownloadResult {
  /** On the wire, and to the last byte received. */
  bytes: number;
  seconds: number;
  /** After gunzip (checked against the upload), and to the last byte decoded. */
  decodedBytes: number;
  decodedSeconds: number;
  contentEncoding: string;
}

/** The worker's SegmentCompressor at one level in workerd, the compression alone timed. */
export interface WorkerdLevel {
  level: number;
  /** Median over the runs. */
  seconds: number;
  inputBytes: number;
  outputBytes: number;
}

export interface BenchResults {
  date: string;
  machine: string;
  compressionLevel: number;
  ingest: IngestResult[];
  memory: MemoryRow[];
  /** The isolate's live memory (after forced collections) during one more 100 MB create. */
  liveMemory: { label: string; outcome: Outcome<HeapSummary> };
  /** The same, during one more create of the 100 MB CSV as our client's parted gzip. */
  liveMemoryParted: { label: string; outcome: Outcome<HeapSummary> };
  appendBytes: number;
  append: AppendResult[];
  download: { source: string; gz: Outcome<DownloadResult>; csv: Outcome<DownloadResult> };
  /** 100-row windows of the 100 MB dataset's latest version, at its start, middle and end. */
  rows: RowsResult[];
  levels: { label: string; results: Outcome<LevelResult[]> };
  workerdLevels: Outcome<WorkerdLevel[]>;
  /** The CSV validator alone, in Node. */
  scanner: { label: string; outcome: Outcome<ScannerResult> };
}

type IngestPart = Pick<BenchResults, "ingest" | "memory" | "liveMemory" | "liveMemoryParted">;

function ingestOutcomes(results: IngestPart): Array<[string, Outcome<unknown>]> {
  return [
    ...results.ingest.flatMap((r): Array<[string, Outcome<unknown>]> => [
      [`create ${r.label}`, r.create],
      [`CompressionStream ${r.label}`, r.baseline],
      [`read and discard ${r.label}`, r.transport],
      ...(r.clientGzip === null
        ? []
        : ([
            [`create parted gzip ${r.label}`, r.clientGzip.parted],
            [`create plain gzip ${r.label}`, r.clientGzip.plain],
          ] as Array<[string, Outcome<unknown>]>)),
    ]),
    ...results.memory.map((r): [string, Outcome<unknown>] => [`memory during ${r.label}`, r.outcome]),
    [`live memory during ${results.liveMemory.label}`, results.liveMemory.outcome],
    [`live memory during ${results.liveMemoryParted.label}`, results.liveMemoryParted.outcome],
  ];
}

function failed(all: Array<[string, Outcome<unknown>]>): string[] {
  return all.filter(([, outcome]) => !outcome.ok).map(([what, outcome]) => `${what}: ${outcome.ok ? "" : outcome.error}`);
}

/** `--ingest` runs: the creates, their baselines and memory readings. */
export function ingestFailures(results: IngestPart): string[] {
  return failed(ingestOutcomes(results));
}

export function failures(results: BenchResults): string[] {
  const all: Array<[string, Outcome<unknown>]> = [
    ...ingestOutcomes(results),
    ...results.append.map((r): [string, Outcome<unknown>] => [`append to ${r.label}`, r.seconds]),
    ["download .gz", results.download.gz],
    ["download .csv", results.download.csv],
    ...results.rows.map((r): [string, Outcome<unknown>] => [`rows at ${r.label}`, r.seconds]),
    ["compression levels", results.levels.results],
    ["compression levels in workerd", results.workerdLevels],
    ["CSV scanner", results.scanner.outcome],
  ];
  return failed(all);
}
