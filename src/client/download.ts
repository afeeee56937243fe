// Downloads a version's content: always fetches the `.gz` form (docs/api.md) so progress counts the
// bytes that cross the wire against Content-Length, and inflates it locally when CSV is wanted.
// A download can resume where an earlier one stopped: `Range` from that offset, guarded by
// `If-Range` with the ETag it had (RFC 9110 §13.1.5, §14.2); a 200 means start over.
import { PubsetError } from "./errors.ts";
import { safeFileName } from "./file-name.ts";
import { countingStream } from "./progress.ts";
import type { Transport } from "./transport.ts";
import { sleep } from "./retry.ts";
import type { ProgressCallback } from "./types.ts";

/** A `source` path (from create/update), or a dataset id with an optional version (default
 * latest) and file name (default: read from the record's `Link: rel="enclosure"`). */
export type DownloadTarget = { source: string } | { id: string; version?: string; file?: string };
export type ResolvedTarget = { source: string } | { id: string; version?: string; file: string };

export interface DownloadOptions {
  /**
   * `gzip` (default): the stored gzip bytes as served; `csv`: decompressed as they arrive;
   * `parquet`: the version's Parquet twin (docs/columnar.md), waited for while it is being built.
   */
  format?: "gzip" | "csv" | "parquet";
  /** How long a `parquet` download waits for a twin still being built (default 10 minutes). */
  waitMs?: number;
  /** The first `offset` bytes of this format are already saved, as `etag` named them. */
  resume?: { offset: number; etag: string };
  onProgress?: ProgressCallback;
  signal?: AbortSignal;
}

export interface Download {
  stream: ReadableStream<Uint8Array>;
  /** `cities.csv.gz` for gzip, `cities.csv` for csv: a safe base name (file-name.ts). */
  fileName: string;
  /** The gzip's size (Content-Length), when the server sent it. */
  compressedBytes: number | undefined;
  /** The path that was fetched. */
  path: string;
  /** Where `stream` starts in the file: the resume offset, or 0 when it starts over. */
  offset: number;
  /** The strong ETag of the bytes in this format, for a later `resume`; null when none came. */
  etag: string | null;
}

export function sourcePath(target: ResolvedTarget): string {
  if ("source" in target) return target.source.endsWith(".gz") ? target.source : `${target.source}.gz`;
  const file = target.file.endsWith(".gz") ? target.file : `${target.file}.gz`;
  const parts = [target.id, target.version ?? "latest", file].map(encodeURIComponent);
  return `/v1/dataset/${parts.join("/")}`;
}

// The DOM typing's writable side takes any BufferSource, which a Uint8Array stream's pipeThrough
// does not accept (parameter variance); we only ever write Uint8Array to it.
function gunzip(): TransformStream<Uint8Array, Uint8Array> {
  return new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
}

/** The Parquet twin's path beside a `.gz` path: the file name without `.gz` and a final `.csv`, plus `.parquet`. */
export function parquetPath(gzPath: string): string {
  return `${gzPath.replace(/\.gz$/, "").replace(/\.csv$/i, "")}.parquet`;
}

/** The safe base name a download of `path` (a `.gz` or `.parquet` path) is saved under in `format`. */
export function downloadFileName(path: string, format: "gzip" | "csv" | "parquet" = "gzip"): string {
  if (format === "parquet") {
    const twin = path.endsWith(".parquet") ? path : parquetPath(path);
    return safeFileName(twin.slice(twin.lastIndexOf("/") + 1), "dataset.parquet");
  }
  const gzName = safeFileName(path.slice(path.lastIndexOf("/") + 1), "dataset.csv.gz");
  return format === "csv" ? gzName.replace(/\.gz$/, "") : gzName;
}

function numberHeader(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The server's ETag of a version's CSV bytes (docs/api.md#endpoints: `"<version>.csv"` beside the
 * `.gz` file's `"<version>.gz"`): a CSV saved from the `.gz` resumes from the CSV's own bytes.
 */
function csvEtag(gzEtag: string | null): string | null {
  return gzEtag !== null && /^"[^"]+\.gz"$/.test(gzEtag) ? gzEtag.replace(/\.gz"$/, '.csv"') : null;
}

const PARQUET_WAIT_MS = 10 * 60_000;

/** A twin still being built answers 503 parquet_pending (state pending): wait and ask again, up to `waitMs`. */
async function waitingForParquet<T>(options: DownloadOptions, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (options.waitMs ?? PARQUET_WAIT_MS);
  for (;;) {
    try {
      return await attempt();
    } catch (error: unknown) {
      const pending = error instanceof PubsetError && error.code === "parquet_pending" && error.problem.state !== "failed";
      if (!pending || Date.now() >= deadline) throw error;
      const retryAfter = Number(error.headers.get("retry-after") ?? "30");
      await sleep(Math.min(Math.max(1, retryAfter) * 1000, Math.max(0, deadline - Date.now())), options.signal);
    }
  }
}

export async function download(transport: Transport, url: string, options: DownloadOptions = {}): Promise<Download> {
  if (options.format === "parquet") {
    const twin = url.endsWith(".parquet") ? url : parquetPath(url);
    return waitingForParquet(options, () => downloadFile(transport, twin, options));
  }
  return downloadFile(transport, url, options);
}

async function downloadFile(transport: Transport, url: string, options: DownloadOptions): Promise<Download> {
  const resumed = options.resume && options.resume.offset > 0 ? await resume(transport, url, options) : null;
  if (resumed) return resumed;
  const response = await transport.send({ method: "GET", url, signal: options.signal });
  const compressedBytes = numberHeader(response, "content-length");
  let stream = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const progress = options.onProgress;
  if (progress) stream = stream.pipeThrough(countingStream((loaded) => progress({ phase: "download", loaded, total: compressedBytes })));
  const path = new URL(url).pathname;
  const etag = response.headers.get("etag");
  if (options.format === "csv") {
    return { stream: stream.pipeThrough(gunzip()), fileName: downloadFileName(path, "csv"), compressedBytes, path, offset: 0, etag: csvEtag(etag) };
  }
  return { stream, fileName: downloadFileName(path, options.format === "parquet" ? "parquet" : "gzip"), compressedBytes, path, offset: 0, etag };
}

/** The rest of the file from `resume.offset` (a 206), or null when it must start over. */
async function resume(transport: Transport, url: string, options: DownloadOptions): Promise<Download | null> {
  const { offset, etag } = options.resume as { offset: number; etag: string };
  const csv = options.format === "csv";
  // A Range on the CSV path is answered in the CSV's own bytes (docs/api.md#endpoints).
  const rangeUrl = csv ? url.replace(/\.gz$/, "") : url;
  let response: Response;
  try {
    response = await transport.send({ method: "GET", url: rangeUrl, headers: { range: `bytes=${offset}-`, "if-range": etag }, signal: options.signal });
  } catch (error: unknown) {
    if (error instanceof PubsetError && error.status === 416) return null; // the saved part is not a prefix of this file
    throw error;
  }
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get("content-range") ?? "");
  if (response.status !== 206 || !range || Number(range[1]) !== offset) {
    await response.body?.cancel();
    return null;
  }
  const total = Number(range[3]);
  let stream = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const progress = options.onProgress;
  if (progress) stream = stream.pipeThrough(countingStream((loaded) => progress({ phase: "download", loaded: offset + loaded, total })));
  const path = new URL(url).pathname;
  return {
    stream,
    fileName: downloadFileName(path, csv ? "csv" : options.format === "parquet" ? "parquet" : "gzip"),
    compressedBytes: csv ? undefined : total,
    path,
    offset,
    etag: response.headers.get("etag") ?? etag,
  };
}
