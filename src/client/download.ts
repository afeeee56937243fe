// Downloads a version's content: always fetches the `.gz` form (SPEC C) so progress counts the
// bytes that cross the wire against Content-Length, and inflates it locally when CSV is wanted.
import { safeFileName } from "./file-name.ts";
import { countingStream } from "./progress.ts";
import type { Transport } from "./transport.ts";
import type { ProgressCallback } from "./types.ts";

/** A `source` path (from create/update), or a dataset id with an optional version (default
 * latest) and file name (default: read from the record's `Link: rel="enclosure"`). */
export type DownloadTarget = { source: string } | { id: string; version?: string; file?: string };
export type ResolvedTarget = { source: string } | { id: string; version?: string; file: string };

export interface DownloadOptions {
  /** `gzip` (default): the stored gzip bytes as served; `csv`: decompressed as they arrive. */
  format?: "gzip" | "csv";
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

export async function download(transport: Transport, url: string, options: DownloadOptions = {}): Promise<Download> {
  const response = await transport.send({ method: "GET", url, signal: options.signal });
  const length = response.headers.get("content-length");
  const compressedBytes = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  let stream = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const progress = options.onProgress;
  if (progress) stream = stream.pipeThrough(countingStream((loaded) => progress({ phase: "download", loaded, total: compressedBytes })));
  const path = new URL(url).pathname;
  const gzName = safeFileName(path.slice(path.lastIndexOf("/") + 1), "dataset.csv.gz");
  if (options.format === "csv") {
    const csv = stream.pipeThrough(gunzip());
    return { stream: csv, fileName: gzName.replace(/\.gz$/, ""), compressedBytes, path };
  }
  return { stream, fileName: gzName, compressedBytes, path };
}
