// Picks the ingest path for a `dataset` part (docs/api.md#writes, docs/storage-protocol.md "Upload format"):
// CSV → validate and compress (ingest.ts); a parted gzip → validate and keep its bytes
// (ingest-parted.ts), or, when it breaks the format's promises, recompress the staged copy;
// any other gzip → inflate, validate and compress.
import type { CsvMode } from "../../csv/scanner.ts";
import type { Limits } from "../../config.ts";
import type { TypingPlan } from "../../schema/column-typer.ts";
import { MAX_HEADER_BYTES, readPartedGzipHeader, type HeaderRead } from "../../wire/parted-gzip-header.ts";
import { concatBytes } from "../../wire/deflate-segment.ts";
import { withHead } from "../../wire/stream-sequence.ts";
import { gunzip, limitContent } from "./gunzip.ts";
import { ingestCsv, type IngestedSegment } from "./ingest.ts";
import { ingestPartedGzip, stagedGzip } from "./ingest-parted.ts";
import type { DatasetPart } from "../request-body.ts";

export interface IngestOptions {
  mode: CsvMode;
  /** How cells are typed (docs/column-types.md); the same on every path. */
  typing: TypingPlan | null;
  limits: Limits;
  bucket: R2Bucket;
  /** A fresh object key recorded as an upload intent (UploadedObjects.reserve). */
  reserve: () => Promise<string>;
}

export async function ingestDataset(part: DatasetPart, options: IngestOptions): Promise<IngestedSegment> {
  const { mode, typing, limits, bucket } = options;
  const recompress = async (content: ReadableStream<Uint8Array>) =>
    ingestCsv(limitContent(content, limits), { mode, typing, limits, bucket, key: await options.reserve() });
  if (!part.compressed) return recompress(part.body);
  const reader = part.body.getReader();
  const { read, head } = await peekHeader(reader);
  if (read.status !== "parted") return recompress(gunzip(withHead(head, reader)));
  const staged = await options.reserve();
  const outcome = await ingestPartedGzip(head.subarray(read.headerBytes), reader, read.parts, { mode, typing, limits, bucket, key: staged });
  if ("stored" in outcome) return outcome.stored;
  return recompress(gunzip(stagedGzip(bucket, staged, outcome.recompress)));
}

/** Reads until the gzip header can be judged; returns every byte read. */
export async function peekHeader(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ read: HeaderRead; head: Uint8Array }> {
  let head: Uint8Array = new Uint8Array(0);
  for (;;) {
    const read = readPartedGzipHeader(head);
    if (read.status !== "more" || head.length > MAX_HEADER_BYTES) return { read, head };
    const { done, value } = await reader.read();
    if (done) return { read: { status: "not-parted" }, head };
    head = concatBytes([head, value]);
  }
}
