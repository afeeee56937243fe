// Renders a bench run as the markdown printed to stdout, written to bench/out/latest.md and
// pasted into docs/performance.md. Failed steps show their error in place.
import type { LevelResult } from "./levels.ts";
import type { AppendResult, BenchResults, IngestResult, MemoryResult, Outcome, RowsResult, Timing, WorkerdLevel } from "./results.ts";
import { MB, MIB, mbPerSecond, median, mib } from "./stats.ts";

const MEMORY_GOAL_BYTES = 64 * MIB;
const APPEND_RATIO_GOAL = 1.2;

function failed(outcome: Outcome<unknown>): string {
  return outcome.ok ? "" : `**failed**: ${outcome.error.replaceAll("|", "\\|").replaceAll("\n", " ")}`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function seconds(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} ms` : `${value.toFixed(2)} s`;
}

function ingestRow(r: IngestResult): string[] {
  const create = r.create.ok ? `${seconds(r.create.value.seconds)} (median of ${r.create.value.runs})` : failed(r.create);
  const createRate = r.create.ok ? `**${mbPerSecond(r.bytes, r.create.value.seconds)}**` : "—";
  const base = r.baseline.ok ? `${seconds(r.baseline.value.seconds)} (median of ${r.baseline.value.runs})` : failed(r.baseline);
  const baseRate = r.baseline.ok ? mbPerSecond(r.bytes, r.baseline.value.seconds) : "—";
  const ratio = r.create.ok && r.baseline.ok ? `**${(r.baseline.value.seconds / r.create.value.seconds).toFixed(2)}×**` : "—";
  const transport = r.transport.ok ? mbPerSecond(r.bytes, r.transport.value.seconds) : failed(r.transport);
  return [`${r.label} (${r.bytes.toLocaleString("en")} B, ${r.rows.toLocaleString("en")} rows)`, create, createRate, base, baseRate, ratio, transport];
}

/** Throughput is raw CSV bytes per second of the create; the ratio is against CompressionStream on the same raw bytes. */
function clientGzipRow(r: IngestResult): string[] {
  const label = `${r.label}`;
  const c = r.clientGzip;
  if (c === null) return [label, "—", "—", "—", "—", "—", "—", "—"];
  const rate = (t: Outcome<Timing>) => (t.ok ? mbPerSecond(r.bytes, t.value.seconds) : "—");
  const ratio = (t: Outcome<Timing>) => (t.ok && r.baseline.ok ? `**${(r.baseline.value.seconds / t.value.seconds).toFixed(2)}×**` : "—");
  const time = (t: Outcome<Timing>) => (t.ok ? `${seconds(t.value.seconds)} (median of ${t.value.runs})` : failed(t));
  return [
    `${label} → ${(c.partedBytes / MB).toFixed(1)} MB parted / ${(c.plainBytes / MB).toFixed(1)} MB plain`,
    time(c.parted),
    `**${rate(c.parted)}**`,
    ratio(c.parted),
    time(c.plain),
    rate(c.plain),
    ratio(c.plain),
    r.create.ok ? ratio(r.create) : "—",
  ];
}

function memoryRow(label: string, outcome: Outcome<MemoryResult>, goal: boolean): string[] {
  if (!outcome.ok) return [label, failed(outcome), "—", goal ? "< 64 MiB" : "", "—", "—"];
  const { worker, proxy, heap } = outcome.value;
  const verdict = goal ? `< 64 MiB: ${worker.growth < MEMORY_GOAL_BYTES ? "met" : "**missed**"}` : "";
  const isolate = heap === null || heap.samples === 0 ? "—" : `${mib(heap.baseline)} → **${mib(heap.peak)}**`;
  return [label, `${mib(worker.baseline)} → ${mib(worker.peak)}`, `**${mib(worker.growth)}**`, verdict, isolate, proxy === null ? "—" : mib(proxy.growth)];
}

function liveMemoryLine(live: BenchResults["liveMemory"]): string {
  const { label, outcome } = live;
  const head = `**Live isolate memory** during one more ${label} (V8 heap + ArrayBuffers read right after a forced full collection, every 0.5 s; this request's time is not counted):`;
  if (!outcome.ok) return `${head} ${failed(outcome)}`;
  const { baseline, peak, samples } = outcome.value;
  const verdict = peak < MEMORY_GOAL_BYTES ? "under" : "**over**";
  return `${head} ${mib(baseline)} before, peak **${mib(peak)}** over ${samples} readings, ${verdict} 64 MiB.`;
}

function appendRows(rows: AppendResult[]): string[][] {
  const medians = rows.map((r) => (r.seconds.ok ? median(r.seconds.value) : Number.NaN));
  const out = rows.map((r, i) => [
    r.label,
    r.seconds.ok ? `**${seconds(medians[i] as number)}**` : failed(r.seconds),
    r.seconds.ok ? r.seconds.value.map(seconds).join(", ") : "—",
  ]);
  const [small, large] = medians;
  if (rows.length === 2 && small !== undefined && large !== undefined && Number.isFinite(small) && Number.isFinite(large)) {
    const ratio = large / small;
    out.push([`ratio ${rows[1]?.label} / ${rows[0]?.label}`, `**${ratio.toFixed(2)}**`, `goal ≤ ${APPEND_RATIO_GOAL}: ${ratio <= APPEND_RATIO_GOAL ? "met" : "**missed**"}`]);
  }
  return out;
}

function downloadRows(results: BenchResults): string[][] {
  const { gz, csv } = results.download;
  return ([["`.gz`", gz], ["`.csv`", csv]] as const).map(([file, outcome]) => {
    if (!outcome.ok) return [file, failed(outcome), "—", "—", "—", "—"];
    const d = outcome.value;
    return [
      file,
      d.contentEncoding === "none" ? "—" : d.contentEncoding,
      `${(d.bytes / MB).toFixed(1)} MB in ${seconds(d.seconds)}`,
      mbPerSecond(d.bytes, d.seconds),
      `${(d.decodedBytes / MB).toFixed(1)} MB in ${seconds(d.decodedSeconds)}`,
      `**${mbPerSecond(d.decodedBytes, d.decodedSeconds)}**`,
    ];
  });
}

function rowsRows(rows: RowsResult[]): string[][] {
  return rows.map((r) => [
    `${r.label} (offset ${r.offset.toLocaleString("en")})`,
    r.seconds.ok ? `**${seconds(median(r.seconds.value))}**` : failed(r.seconds),
    r.seconds.ok ? r.seconds.value.map(seconds).join(", ") : "—",
  ]);
}

function levelRows(levels: LevelResult[], workerd: Outcome<WorkerdLevel[]>, chosen: number): string[][] {
  return levels.map((l) => {
    const label = l.level === chosen ? `**${l.level}** (chosen)` : String(l.level);
    const inWorkerd = workerd.ok ? workerd.value.find((w) => w.level === l.level) : undefined;
    const workerdRate = inWorkerd === undefined ? (workerd.ok ? "—" : failed(workerd)) : (inWorkerd.inputBytes / MIB / inWorkerd.seconds).toFixed(1);
    return [
      label,
      `${(l.outputBytes / MB).toFixed(2)} MB`,
      `${((100 * l.outputBytes) / l.inputBytes).toFixed(1)} %`,
      (l.inputBytes / MIB / l.seconds).toFixed(1),
      workerdRate,
    ];
  });
}

function scannerLine(results: BenchResults): string {
  const { label, outcome } = results.scanner;
  const head = `**CSV scanner** alone (\`src/csv/scanner.ts\`, validation only; ${label}, median of 5 after a warm-up):`;
  if (!outcome.ok) return `${head} ${failed(outcome)}`;
  const { bytes, seconds } = outcome.value;
  return `${head} **${(bytes / MIB / seconds).toFixed(1)} MiB/s** (${seconds < 1 ? `${(seconds * 1000).toFixed(0)} ms` : `${seconds.toFixed(2)} s`} for ${(bytes / MB).toFixed(1)} MB).`;
}

export function clientGzipSection(results: Pick<BenchResults, "ingest">): string {
  return [
    "**Client-compressed ingest**: the same CSV gzipped before the upload (level 3), sent as `application/gzip`. *Parted*: our client's format (docs/storage-protocol.md, \"Upload format\"), stored as sent after its checks; *plain*: one gzip stream (Node's zlib), inflated, validated and compressed again (today's path for any other gzip). MB/s = raw CSV MB per second of the whole request; ratio = that ÷ `CompressionStream('gzip')` on the raw bytes (table above, same run). The last column is the plain-CSV create of the table above, for comparison:",
    "",
    table(
      ["CSV → on the wire", "parted create", "MB/s", "ratio", "plain gzip create", "MB/s", "ratio", "plain CSV ratio"],
      results.ingest.map(clientGzipRow),
    ),
  ].join("\n");
}

/** The one-request ingest table and the client-compressed one beneath it. */
function ingestTables(results: Pick<BenchResults, "ingest">): string {
  return [
    table(["CSV", "create", "MB/s", "CompressionStream('gzip')", "MB/s", "ratio", "read only, MB/s"], results.ingest.map(ingestRow)),
    "",
    clientGzipSection(results),
  ].join("\n");
}

/** RSS and isolate readings of the large requests, then the live-memory lines. */
function memoryTables(results: Pick<BenchResults, "memory" | "liveMemory" | "liveMemoryParted">): string {
  return [
    table(
      ["request", "workerd RSS before → peak", "RSS growth", "goal", "isolate: V8 heap + ArrayBuffers, before → peak", "dev proxy RSS growth"],
      results.memory.map((r) => memoryRow(r.label, r.outcome, r.goal)),
    ),
    "",
    liveMemoryLine(results.liveMemory),
    "",
    liveMemoryLine(results.liveMemoryParted),
  ].join("\n");
}

/** `--ingest`: the ingest tables, their memory rows and the live-memory lines only. */
export function renderIngestReport(results: Pick<BenchResults, "date" | "machine" | "ingest" | "memory" | "liveMemory" | "liveMemoryParted">): string {
  return [
    `### Ingest bench run ${results.date}`,
    "",
    `${results.machine}. MB = 10^6 bytes, MiB = 2^20 bytes.`,
    "",
    ingestTables(results),
    "",
    memoryTables(results),
    "",
  ].join("\n");
}

export function renderReport(results: BenchResults): string {
  const levels = results.levels.results;
  const big = results.ingest[results.ingest.length - 1]?.label ?? "largest";
  return [
    `### Bench run ${results.date}`,
    "",
    `${results.machine}. MB = 10^6 bytes, MiB = 2^20 bytes. Compression level ${results.compressionLevel} (\`compressionLevel\` in src/config.ts, var \`COMPRESSION_LEVEL\`).`,
    "",
    "**Ingest**: signed `POST /v1/dataset` (multipart, CSV streamed from disk) to `201`, against the same workerd piping the same bytes through `CompressionStream('gzip')` (bench-only endpoint). Ratio = ingest throughput ÷ CompressionStream throughput. \"Read only\": the worker just reads the same body, the ceiling of the local transport (client → wrangler's proxy workerd → worker).",
    "",
    ingestTables(results),
    "",
    `**Memory during the ${big} requests.** RSS (VmRSS, every 50 ms) of the workerd that runs pubset, which also holds the runtime, the local D1 and R2 simulators and heap pages V8 keeps after collecting; and the worker isolate's own memory (V8 heap in use, uncollected garbage included, plus ArrayBuffers; DevTools \`Runtime.getHeapUsage\`, polled back to back). Each request ran twice: the first meets a process grown only by the smaller runs, the second shows the steady state. \`wrangler dev\`'s proxy workerd (not part of a deployment) is shown for completeness:`,
    "",
    memoryTables(results),
    "",
    `**Append** ${results.appendBytes.toLocaleString("en")} bytes (1,000 rows) as a new version; the cost must not depend on the dataset's size:`,
    "",
    table(["dataset", "median", "runs"], appendRows(results.append)),
    "",
    `**Download** of the ${big} version${results.download.source ? ` (\`${results.download.source}\`)` : ""}, signed GET, gunzipped by the client as it arrives and checked (sha-256) against the upload:`,
    "",
    table(["file", "Content-Encoding", "received", "MB/s on the wire", "CSV after gunzip", "CSV MB/s"], downloadRows(results)),
    ...(results.download.csv.ok && results.download.csv.value.contentEncoding === "gzip"
      ? [
          "",
          "The `.csv` came as the stored gzip with `Content-Encoding: gzip`: workerd hands every request to a worker with `Accept-Encoding: br, gzip` (the client's own header is in `request.cf.clientAcceptEncoding`), so the worker never inflates; Cloudflare's edge decodes for clients that cannot.",
        ]
      : []),
    "",
    `**Rows**: signed \`GET …/latest/rows?offset=N&limit=100\` on the ${big} dataset (after the appends), median of 5 after one warm-up each:`,
    "",
    table(["window", "median", "runs"], rowsRows(results.rows)),
    "",
    `**Compression levels** (${results.levels.label}; workerd: the same CSV POSTed to the bench-only \`/__bench/deflate?level=N\`, which runs the same SegmentCompressor over it in the worker's workerd in the same 1 MiB pushes and times the compression alone, median of 3):`,
    "",
    levels.ok
      ? table(["level", "size", "% of input", "Node MiB/s", "workerd MiB/s"], levelRows(levels.value, results.workerdLevels, results.compressionLevel))
      : failed(levels),
    "",
    scannerLine(results),
    "",
  ].join("\n");
}
