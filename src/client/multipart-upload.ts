// The multipart/form-data body of a write (docs/api.md: `collection` JSON + `dataset` file) as a
// stream whose length and Content-Digest are known before it is sent: a first pass gzips the
// file (parted gzip, gzip-stream.ts), a second hashes the whole body; each send then replays
// the same bytes (see spool.ts).
import { toBase64 } from "../wire/bytes.ts";
import { concatStreams, forEachChunk, streamOf, type StreamPiece } from "./byte-streams.ts";
import { UploadSourceError } from "./errors.ts";
import { partedDeflateStream, partedEnvelope, type GzipLevel } from "./gzip-stream.ts";
import { countingStream } from "./progress.ts";
import { Sha256 } from "./sha256.ts";
import { memorySpool, type Spool, type SpoolFactory } from "./spool.ts";
import type { RequestBody } from "./transport.ts";
import type { Collection, ProgressCallback } from "./types.ts";
import type { SourceReader } from "./upload-source.ts";

export interface UploadFile {
  source: SourceReader;
  /** Compress client-side; false sends the bytes as they are (already gzip, or `gzip: false`). */
  gzip: boolean;
}

export interface PrepareOptions {
  level: GzipLevel;
  spool?: SpoolFactory;
  onProgress?: ProgressCallback;
}

export interface PreparedUpload extends RequestBody {
  dispose(): Promise<void>;
}

const encoder = new TextEncoder();

// The HTML form encoding of a file name inside a quoted-string (WHATWG multipart/form-data).
function quoteFileName(name: string): string {
  return name.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function newBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return `pubset-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function contentDigest(sha256: Uint8Array): string {
  return `sha-256=:${toBase64(sha256)}:`;
}

/** Errors the stream unless exactly `expected` bytes pass: the source changed since pass one. */
function lengthChecked(expected: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  const changed = () => new UploadSourceError("the upload source changed while it was being sent; nothing was written");
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.length;
      if (seen > expected) throw changed();
      controller.enqueue(chunk);
    },
    flush() {
      if (seen !== expected) throw changed();
    },
  });
}

export async function prepareMultipart(collection: Collection | undefined, file: UploadFile | undefined, options: PrepareOptions): Promise<PreparedUpload> {
  const boundary = newBoundary();
  let head = "";
  if (collection !== undefined) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n`;
    head += `${JSON.stringify(collection)}\r\n`;
  }
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (file === undefined) {
    const whole = encoder.encode(`${head}--${boundary}--\r\n`);
    const digest = new Sha256().update(whole).digest();
    return { contentType, length: whole.length, contentDigest: contentDigest(digest), open: () => streamOf(whole), dispose: async () => undefined };
  }
  const { source, gzip } = file;
  const fileName = gzip ? `${source.name}.gz` : source.name;
  const partType = gzip || fileName.toLowerCase().endsWith(".gz") ? "application/gzip" : "text/csv";
  head += `--${boundary}\r\nContent-Disposition: form-data; name="dataset"; filename="${quoteFileName(fileName)}"\r\n`;
  head += `Content-Type: ${partType}\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(`\r\n--${boundary}--\r\n`);

  const spool: Spool | null = options.spool ? await options.spool() : source.reopenable ? null : memorySpool();
  try {
    const hash = new Sha256().update(headBytes);
    let contentLength = 0;
    const progress = options.onProgress;
    let raw = source.open();
    if (progress) raw = raw.pipeThrough(countingStream((loaded) => progress({ phase: "prepare", loaded, total: source.size })));
    const finished = (pieces: StreamPiece[], length: number): PreparedUpload => ({
      contentType,
      length,
      contentDigest: contentDigest(hash.digest()),
      open: () => concatStreams(pieces),
      dispose: async () => spool?.dispose(),
    });
    if (!gzip) {
      await forEachChunk(raw, async (chunk) => {
        hash.update(chunk);
        contentLength += chunk.length;
        await spool?.write(chunk);
      });
      await spool?.close();
      hash.update(tailBytes);
      const replay = spool ? () => spool.open() : () => source.open().pipeThrough(lengthChecked(contentLength));
      return finished([headBytes, replay, tailBytes], headBytes.length + contentLength + tailBytes.length);
    }
    // The gzip header lists the parts, so it is known only after they are compressed: the parts
    // are hashed in a second pass, from the spool or compressed again (the output is the same).
    const first = partedDeflateStream(options.level);
    await forEachChunk(raw.pipeThrough(first.stream), async (chunk) => {
      contentLength += chunk.length;
      await spool?.write(chunk);
    });
    await spool?.close();
    const { header, trailer } = partedEnvelope(await first.summary);
    const parts = spool
      ? () => spool.open()
      : () => source.open().pipeThrough(partedDeflateStream(options.level).stream).pipeThrough(lengthChecked(contentLength));
    hash.update(header);
    await forEachChunk(parts(), (chunk) => void hash.update(chunk));
    hash.update(trailer).update(tailBytes);
    const length = headBytes.length + header.length + contentLength + trailer.length + tailBytes.length;
    return finished([headBytes, header, parts, trailer, tailBytes], length);
  } catch (error: unknown) {
    await spool?.dispose();
    throw error;
  }
}
