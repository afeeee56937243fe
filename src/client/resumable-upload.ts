// Large writes as resumable uploads (draft-ietf-httpbis-resumable-upload-15; docs/resumable-uploads.md):
// create the upload resource, PATCH the content in chunks no larger than the
// server's `max-append-size`, retry a failed chunk, and after a dropped connection ask HEAD
// where the server is and go on from there. Each chunk of a gzip upload is its own parted gzip
// member (parted-chunks.ts), which the server validates and stores without recompressing, and
// which can be sent again as it was.
import { toBase64 } from "../wire/bytes.ts";
import { streamOf } from "./byte-streams.ts";
import { PubsetError, PubsetNetworkError } from "./errors.ts";
import type { GzipLevel } from "./gzip-stream.ts";
import { partedChunks, type PartedChunk } from "./parted-chunks.ts";
import { sleep } from "./retry.ts";
import { Sha256 } from "./sha256.ts";
import type { RequestBody, Transport } from "./transport.ts";
import type { Collection, ProgressCallback } from "./types.ts";
import type { SourceReader } from "./upload-source.ts";

/** Sources of more than this many bytes go as resumable uploads (`resumableThreshold` changes it). */
export const RESUMABLE_THRESHOLD = 64 * 1024 * 1024;
/** The most content (raw CSV) bytes one chunk carries, below the server's `max-append-size`. */
export const DEFAULT_CHUNK_BYTES = 32 * 1024 * 1024;
/** Attempts per chunk (and per HEAD between them) before the upload gives up. */
const CHUNK_ATTEMPTS = 6;

export interface ResumableOptions {
  /** Content bytes per chunk (default 32 MiB; never more than the server's `max-append-size`, nor less than its `min-append-size`). */
  chunkBytes?: number;
}

export interface ResumableWrite {
  method: "POST" | "PUT";
  /** The write's URL (`/v1/dataset`, `/v1/dataset/{id}`). */
  url: string;
  collection?: Collection;
  source: SourceReader;
  /** The source is gzip already: decompressed here, then compressed again in the parted format. */
  sourceIsGzip: boolean;
  gzip: boolean;
  level: GzipLevel;
  ifMatch?: string;
  idempotencyKey: string;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}

function body(bytes: Uint8Array, contentType: string): RequestBody {
  const digest = new Sha256().update(bytes).digest();
  return { contentType, length: bytes.length, contentDigest: `sha-256=:${toBase64(digest)}:`, open: () => streamOf(bytes) };
}

/** A size of an `Upload-Limit` dictionary (RFC 9651 §3.2), or null. */
function uploadLimitOf(header: string | null, name: "max-append-size" | "min-append-size"): number | null {
  const match = new RegExp(`(?:^|,)\\s*${name}=(\\d+)\\s*(?:;[^,]*)?(?:,|$)`).exec(header ?? "");
  return match ? Number(match[1]) : null;
}

/** `max-append-size` of an `Upload-Limit` dictionary, or null. */
export function maxAppendSize(header: string | null): number | null {
  return uploadLimitOf(header, "max-append-size");
}

/** `min-append-size`: the fewest bytes every chunk but the last must carry (0 when the server names none). */
export function minAppendSize(header: string | null): number {
  return uploadLimitOf(header, "min-append-size") ?? 0;
}

/** Reads `stream` in slices of exactly `size` bytes (the last may be shorter, never empty unless the whole stream is). */
async function* slices(stream: ReadableStream<Uint8Array>, size: number): AsyncGenerator<PartedChunk> {
  const reader = stream.getReader();
  let buffer = new Uint8Array(size);
  let filled = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let at = 0; at < value.length; ) {
        const take = Math.min(size - filled, value.length - at);
        buffer.set(value.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === size) {
          yield { bytes: buffer, rawBytes: size };
          buffer = new Uint8Array(size);
          filled = 0;
        }
      }
    }
    yield { bytes: buffer.subarray(0, filled), rawBytes: filled };
  } finally {
    reader.releaseLock();
  }
}

export async function resumableWrite<T>(transport: Transport, write: ResumableWrite, options: ResumableOptions = {}): Promise<T> {
  const creation = JSON.stringify({
    ...(write.collection ? { collection: write.collection } : {}),
    fileName: write.source.name.replace(/\.gz$/i, ""),
    contentType: write.gzip ? "application/gzip" : "text/csv",
  });
  const headers: Record<string, string> = { "upload-complete": "?0" };
  // Sent as it is, the file's size is the upload's length (draft §4.1.3); compressed, it is known only at the end.
  if (!write.gzip && write.source.size !== undefined) headers["upload-length"] = String(write.source.size);
  if (write.ifMatch !== undefined) headers["if-match"] = `"${write.ifMatch}"`;
  const created = await transport.send({
    method: write.method,
    url: write.url,
    headers,
    body: body(new TextEncoder().encode(creation), "application/json"),
    idempotencyKey: write.idempotencyKey,
    signal: write.signal,
  });
  await created.body?.cancel();
  const location = created.headers.get("location");
  if (location === null) throw new TypeError(`${write.method} ${write.url} with Upload-Complete: ?0 sent no Location; is the server older than this client?`);
  const upload = new URL(location, write.url).toString();

  // The same Idempotency-Key as an interrupted run (the CLI's rerun advice): the server replayed
  // the creation, so this run goes on with that upload from where the server stands.
  let resumeAt = 0;
  let limits = created.headers.get("upload-limit");
  if (created.headers.get("idempotent-replayed") === "true") {
    const head = await transport.send({ method: "HEAD", url: upload, signal: write.signal });
    resumeAt = Number(head.headers.get("upload-offset") ?? "0");
    // A replayed creation keeps only its Location; HEAD names the limits, so the chunks come out as before.
    limits = head.headers.get("upload-limit") ?? limits;
    if (head.headers.get("upload-complete") === "?1") {
      const answer = await sendChunk(transport, upload, resumeAt, body(new Uint8Array(0), "application/partial-upload"), true, write.signal, undefined);
      return (await answer!.json()) as T;
    }
  }
  const limit = maxAppendSize(limits) ?? DEFAULT_CHUNK_BYTES;
  // Every chunk but the last carries at least this many bytes as sent, or the server refuses it.
  const minChunk = minAppendSize(limits);
  // A gzip member of n raw bytes is at most n + 5 bytes per 64 KiB stored block + its framing.
  const chunkBytes = Math.max(1, minChunk, Math.min(options.chunkBytes ?? DEFAULT_CHUNK_BYTES, Math.floor(limit * 0.99) - 1024));

  let raw = write.source.open();
  // DOM typings type the decompressor's input as BufferSource, which Uint8Array is.
  if (write.sourceIsGzip) raw = raw.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  const total = write.sourceIsGzip ? undefined : write.source.size;
  const progress = write.onProgress;
  let offset = 0;
  let sent = 0;
  let pending: PartedChunk | null = null;
  // Source bytes the server held from an earlier run, once the chunks re-made here reach its offset.
  let resumedFrom: number | undefined;
  const send = async ({ bytes: chunk, rawBytes }: PartedChunk, last: boolean): Promise<Response | null> => {
    // In source bytes: the last chunk also counts what the content dropped (a BOM, blank lines at the end).
    const weight = last && total !== undefined ? Math.max(0, total - sent) : rawBytes;
    if (offset < resumeAt) {
      // Chunks are made the same way every run, so the server's offset falls between two of them.
      if (offset + chunk.length > resumeAt || last) throw new TypeError(`the upload is at offset ${resumeAt}, which is not where a chunk of this file ends; was it sent with other settings?`);
      offset += chunk.length;
      sent += weight;
      progress?.({ phase: "prepare", loaded: sent, total, resumable: true });
      if (offset === resumeAt) {
        resumedFrom = sent;
        progress?.({ phase: "upload", loaded: sent, total, resumable: true, resumedFrom });
      }
      return null;
    }
    // One bar over the whole file, in source bytes; after the last byte, the server's commit.
    const onProgress: ProgressCallback | undefined = progress
      ? (p) => {
          const loaded = sent + Math.round((p.loaded / Math.max(1, chunk.length)) * weight);
          const phase = last && p.phase === "processing" ? "processing" : "upload";
          progress(resumedFrom === undefined ? { phase, loaded, total, resumable: true } : { phase, loaded, total, resumable: true, resumedFrom });
        }
      : undefined;
    const answer = await sendChunk(transport, upload, offset, body(chunk, "application/partial-upload"), last, write.signal, onProgress);
    offset += chunk.length;
    sent += weight;
    return answer;
  };
  const chunks = write.gzip ? partedChunks(raw, write.level, chunkBytes, minChunk) : slices(raw, chunkBytes);
  for await (const chunk of chunks) {
    if (pending !== null) await send(pending, false);
    pending = write.gzip ? chunk : { bytes: chunk.bytes.slice(), rawBytes: chunk.rawBytes };
  }
  const final = await send(pending ?? { bytes: new Uint8Array(0), rawBytes: 0 }, true);
  if (final === null) throw new TypeError("the last chunk got no answer");
  return (await final.json()) as T;
}

/**
 * One chunk, sent until the server holds it: on a dropped connection or a 5xx, HEAD says
 * whether it landed (the offset moved past it) or must go again; the last chunk's answer,
 * when lost, is asked for again by re-sending it empty at the final offset.
 */
async function sendChunk(
  transport: Transport,
  upload: string,
  offset: number,
  chunk: RequestBody,
  last: boolean,
  signal: AbortSignal | undefined,
  onProgress: ProgressCallback | undefined,
): Promise<Response | null> {
  let at = offset;
  let content = chunk;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await transport.send({
        method: "PATCH",
        url: upload,
        headers: { "upload-offset": String(at), "upload-complete": last ? "?1" : "?0" },
        body: content,
        signal,
        onProgress: content === chunk ? onProgress : undefined,
        retries: 0,
      });
      if (!last) {
        await response.body?.cancel();
        return null;
      }
      return response;
    } catch (error: unknown) {
      if (signal?.aborted) throw signal.reason;
      const retryable =
        error instanceof PubsetNetworkError ||
        (error instanceof PubsetError && (error.status >= 500 || error.code === "mismatching_upload_offset" || error.code === "conflict"));
      if (!retryable || attempt + 1 >= CHUNK_ATTEMPTS) throw error;
    }
    await sleep(Math.min(8000, 250 * 2 ** attempt), signal);
    const head = await transport.send({ method: "HEAD", url: upload, signal });
    const now = Number(head.headers.get("upload-offset"));
    if (now === offset) {
      at = offset;
      content = chunk;
    } else if (now === offset + chunk.length) {
      if (!last) return null;
      // It landed, and its answer was lost: the server answers an empty last chunk again.
      at = now;
      content = body(new Uint8Array(0), "application/partial-upload");
    } else {
      const detail = `the upload is at offset ${now}, not ${offset} or ${offset + chunk.length}; another client is sending to it`;
      throw new PubsetError({ type: "about:blank", title: "Mismatching upload offset", status: 409, code: "mismatching_upload_offset", detail });
    }
  }
}
