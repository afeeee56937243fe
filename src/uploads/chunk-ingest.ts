// Picks the ingest path for one chunk of a resumable upload (chunks.ts), as
// ingest-dataset.ts does for a one-request upload. A chunk of a gzip upload that is one parted
// gzip member (docs/storage-protocol.md, "Upload format") and starts where a record starts (nothing
// carried from the chunk before) is validated and kept as sent (ingest-parted.ts); any other
// chunk, or one that breaks the format's promises, is inflated, validated and compressed again,
// with the bytes carried from the chunk before in front (ingest.ts).
import type { CsvCheckpoint, CsvMode } from "../csv/scanner.ts";
import type { Limits } from "../config.ts";
import type { ApiError } from "../model/errors.ts";
import { byteLimitStream } from "../http/byte-limit.ts";
import type { TypingCheckpoint, TypingPlan } from "../schema/column-typer.ts";
import { withHead } from "../wire/stream-sequence.ts";
import { prepend, unlessEmpty } from "./chunk-body.ts";
import { gunzip } from "../write/ingest/gunzip.ts";
import { ingestChunk, ingestCsv, type IngestedChunk, type IngestedSegment } from "../write/ingest/ingest.ts";
import { peekHeader } from "../write/ingest/ingest-dataset.ts";
import { ingestPartedGzip, stagedGzip } from "../write/ingest/ingest-parted.ts";

export interface UploadChunkOptions {
  /** The upload's content is gzip: each chunk holds whole gzip members. */
  gzip: boolean;
  /** The chunk with `Upload-Complete: ?1`: scanned to the end of the CSV. */
  final: boolean;
  /** The unfinished record the chunk before left (ingest.ts, IngestedChunk.carry). */
  carry: Uint8Array;
  resume: { scan: CsvCheckpoint; typing: TypingCheckpoint | null } | null;
  /** Raw bytes the upload may still take after the carry; past them, `tooLarge`. */
  rawRoom: number;
  tooLarge: () => ApiError;
  maxCarryBytes: number;
  mode: CsvMode;
  typing: TypingPlan | null;
  limits: Limits;
  bucket: R2Bucket;
  /** A fresh object key recorded as an intent that lives as long as the upload. */
  reserve: () => Promise<string>;
}

/**
 * The chunk's segment. Every object it wrote was reserved as an intent first, so those the
 * upload never lists (a staged gzip chunk) are collected on their own.
 */
export type IngestedUploadChunk = IngestedSegment & Partial<Pick<IngestedChunk, "carry" | "checkpoint" | "typing">>;

export async function ingestUploadChunk(sent: ReadableStream<Uint8Array>, options: UploadChunkOptions): Promise<IngestedUploadChunk> {
  const { mode, typing, limits, bucket, resume, final } = options;
  const key = await options.reserve();
  const recompress = (content: ReadableStream<Uint8Array>, target: string): Promise<IngestedSegment | IngestedChunk> => {
    const scanned = prepend(options.carry, content.pipeThrough(byteLimitStream(options.rawRoom, options.tooLarge)));
    const ingest = { mode, typing, limits, bucket, key: target, resume };
    return final ? ingestCsv(scanned, ingest) : ingestChunk(scanned, { ...ingest, maxCarryBytes: options.maxCarryBytes });
  };
  const inflate = (compressed: ReadableStream<Uint8Array>) => gunzip(compressed, "A chunk of a gzip upload must hold whole gzip members.");
  if (!options.gzip) return recompress(sent, key);

  const reader = sent.getReader();
  const { read, head } = await peekHeader(reader);
  if (read.status !== "parted" || options.carry.length > 0) {
    return recompress(unlessEmpty(withHead(head, reader), inflate), key);
  }
  const chunk = { resume, final, rawRoom: options.rawRoom, tooLarge: options.tooLarge };
  const outcome = await ingestPartedGzip(head.subarray(read.headerBytes), reader, read.parts, { mode, typing, limits, bucket, key, chunk });
  if ("stored" in outcome) return outcome.stored;
  const again = await options.reserve();
  return recompress(inflate(stagedGzip(bucket, key, outcome.recompress)), again);
}
