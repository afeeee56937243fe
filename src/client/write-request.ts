// The shared path of every content-carrying write (create, update, append): prepare the
// multipart body once, send it with one Idempotency-Key for all attempts, free the spool.
// Content past the resumable threshold goes in chunks instead (resumable-upload.ts).
import type { GzipLevel } from "./gzip-stream.ts";
import { prepareMultipart, type UploadFile } from "./multipart-upload.ts";
import { resumableWrite } from "./resumable-upload.ts";
import type { SpoolFactory } from "./spool.ts";
import type { Transport } from "./transport.ts";
import type { Collection, ProgressCallback } from "./types.ts";
import { sourceReader, type UploadInput } from "./upload-source.ts";

export interface WriteOptions {
  /** `If-Match: "<version>"`: fail with 412 unless that is still the latest version (docs/api.md#who-sees-what). */
  ifMatch?: string;
  /** Defaults to a fresh random key per call, reused by that call's retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
  /** Send content of more than this many bytes as a resumable upload (default: the client's, 64 MiB). */
  resumableThreshold?: number;
}

export interface FileOptions {
  /** The file name to send (default: the File's or path's base name, else `dataset.csv`). */
  fileName?: string;
  /** Gzip client-side (default: yes, unless the file name already ends in `.gz`). */
  gzip?: boolean;
}

export interface WriteContext {
  transport: Transport;
  gzipLevel: GzipLevel;
  spool?: SpoolFactory;
  /** Content of a known size larger than this goes as a resumable upload. */
  resumableThreshold: number;
  chunkBytes?: number;
}

export async function uploadFile(input: UploadInput, options: FileOptions): Promise<UploadFile> {
  const source = await sourceReader(input, options.fileName);
  return { source, gzip: options.gzip ?? !source.name.toLowerCase().endsWith(".gz") };
}

export async function sendWrite<T>(
  context: WriteContext,
  method: "POST" | "PUT",
  url: string,
  parts: { collection?: Collection; file?: UploadFile },
  options: WriteOptions,
): Promise<T> {
  const file = parts.file;
  if (file && file.source.size !== undefined && file.source.size > (options.resumableThreshold ?? context.resumableThreshold)) {
    const sourceIsGzip = file.source.name.toLowerCase().endsWith(".gz");
    return resumableWrite<T>(
      context.transport,
      {
        method,
        url,
        collection: parts.collection,
        source: file.source,
        sourceIsGzip,
        gzip: sourceIsGzip || file.gzip,
        level: context.gzipLevel,
        ifMatch: options.ifMatch,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
        signal: options.signal,
        onProgress: options.onProgress,
      },
      { chunkBytes: context.chunkBytes },
    );
  }
  const body = await prepareMultipart(parts.collection, parts.file, {
    level: context.gzipLevel,
    spool: parts.file ? context.spool : undefined,
    onProgress: options.onProgress,
  });
  try {
    const headers: Record<string, string> = {};
    if (options.ifMatch !== undefined) headers["if-match"] = `"${options.ifMatch}"`;
    const response = await context.transport.send({
      method,
      url,
      headers,
      body,
      idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
      signal: options.signal,
      onProgress: options.onProgress,
    });
    return (await response.json()) as T;
  } finally {
    await body.dispose();
  }
}
