// The shared path of every content-carrying write (create, update, append): prepare the
// multipart body once, send it with one Idempotency-Key for all attempts, free the spool.
import type { GzipLevel } from "./gzip-stream.ts";
import { prepareMultipart, type UploadFile } from "./multipart-upload.ts";
import type { SpoolFactory } from "./spool.ts";
import type { Transport } from "./transport.ts";
import type { Collection, ProgressCallback } from "./types.ts";
import { sourceReader, type UploadInput } from "./upload-source.ts";

export interface WriteOptions {
  /** `If-Match: "<version>"`: fail with 412 unless that is still the latest version (SPEC B3). */
  ifMatch?: string;
  /** Defaults to a fresh random key per call, reused by that call's retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
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
