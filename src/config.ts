// Every limit and tunable in one place. Operators change them as wrangler.toml [vars];
// the defaults here apply when a var is absent.

export interface Limits {
  maxUploadBytes: number;
  maxContentBytes: number;
  maxColumns: number;
  maxFieldBytes: number;
  maxHeaderBytes: number;
  signatureWindowSeconds: number;
  compressionLevel: number;
  /** Tiered compaction (src/storage/compaction-plan.ts): segments per tier, list bound, size cap. */
  compactionFanIn: number;
  compactionMaxSegments: number;
  compactionMaxMergedBytes: number;
  /** Longer than any write takes; an upload's unclaimed objects are collected after it. */
  writeGraceSeconds: number;
  /** Longer than any download takes; replaced and deleted objects are kept this long. */
  readGraceSeconds: number;
  /** How long a completed write is replayed for its Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** How long an unanswered request holds its Idempotency-Key (a request that died mid-way). */
  idempotencyLeaseSeconds: number;
  /** A resumable upload's most bytes, sent and uncompressed (Upload-Limit `max-size`). */
  maxResumableBytes: number;
  /** A resumable upload idle this long expires; the clean-up removes it and its segments. */
  uploadExpirySeconds: number;
  /**
   * The fewest bytes (as sent) a resumable upload's chunk may carry unless it is the last one
   * (Upload-Limit `min-append-size`). Each chunk costs a D1 batch and an R2 object, so a
   * trickle of tiny chunks would make an upload expensive to hold and its version slow to read.
   */
  minUploadChunkBytes: number;
  /**
   * The most chunks one resumable upload may take, its last included. Never below
   * ⌊maxResumableBytes / minUploadChunkBytes⌋ + 1 (limitsFrom raises it): an upload whose
   * chunks keep to the minimum always fits, so only a smaller chunk can be refused for it.
   */
  maxUploadChunks: number;
  /**
   * A resumable upload's segment this large (compressed) is big enough: streaming it takes far
   * longer than the one R2 request it costs, so the upload never copies it. Smaller ones are
   * merged as the chunks land (src/uploads/segments.ts).
   */
  uploadSegmentBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxUploadBytes: 100 * 1024 * 1024,
  maxContentBytes: 1024 * 1024 * 1024,
  maxColumns: 4096,
  maxFieldBytes: 1024 * 1024,
  maxHeaderBytes: 1024 * 1024,
  signatureWindowSeconds: 300,
  compressionLevel: 3,
  compactionFanIn: 5,
  compactionMaxSegments: 16,
  compactionMaxMergedBytes: 1024 * 1024 * 1024,
  writeGraceSeconds: 6 * 60 * 60,
  readGraceSeconds: 60 * 60,
  idempotencyTtlSeconds: 24 * 60 * 60,
  idempotencyLeaseSeconds: 15 * 60,
  maxResumableBytes: 5 * 1024 ** 3,
  uploadExpirySeconds: 24 * 60 * 60,
  // 64 KiB: far below what any client sends over a network (ours: 32 MiB of CSV per chunk), far
  // above one row. With 5 GiB that allows 81,921 chunks; MAX_UPLOAD_CHUNKS rounds it to 100,000.
  minUploadChunkBytes: 64 * 1024,
  maxUploadChunks: 100_000,
  // 8 MiB: ~80 ms of streaming at 100 MB/s against one R2 request's 10–30 ms; our client's chunks
  // (32 MiB of CSV, ~10 MB as gzip) are above it, so they are stored once and never copied.
  uploadSegmentBytes: 8 * 1024 * 1024,
};

/**
 * The most bytes of an unfinished record a resumable upload's chunk carries over to the next
 * one (kept in its D1 row, whose values D1 caps at 2,000,000 bytes).
 */
export const MAX_CARRY_BYTES = 1024 * 1024;

/** The part size both sides cut at is part of the wire format (src/wire/parted-gzip-header.ts). */
export { PART_RAW_BYTES } from "./wire/parted-gzip-header.ts";
export const LIST_DEFAULT_LIMIT = 100;
export const LIST_MAX_LIMIT = 1000;
export const ROWS_DEFAULT_LIMIT = 100;
export const ROWS_MAX_LIMIT = 1000;
/** Cell characters one rows response may carry; past it the page ends early (at least one row). */
export const ROWS_MAX_RESPONSE_CHARS = 8 * 1024 * 1024;
/**
 * What one query may read (docs/queries.md#cost): bytes of CSV text from the segments, or of
 * uncompressed Parquet pages of the needed columns from the twin. The slowest scan is the CSV
 * one (docs/performance.md, `npm run bench:query`: 6.8 MB/s on a 2-core machine at load 10), so
 * 256 MiB costs at most about 40 s of CPU, well inside the 300 s `limits.cpu_ms` in wrangler.toml. Past it `/rows` answers `"partial": true` and
 * `/rows.csv` answers 413 query_too_large before its first byte; the var of this name overrides it.
 */
export const QUERY_SCAN_BUDGET_BYTES = 256 * 1024 * 1024;
/** Rows a sorted CSV export keeps in memory per pass; each further pass reads the version again. */
export const QUERY_EXPORT_SORT_ROWS = 10_000;
export const MAX_PROPERTIES_BYTES = 16 * 1024;
export const MAX_NAME_LENGTH = 200;
export const MAX_KEY_WORDS = 64;
export const MAX_FILE_NAME_LENGTH = 128;
export const MAX_SEARCH_QUERY_LENGTH = 200;


function positiveInt(source: object, name: string, fallback: number): number {
  const raw: unknown = (source as Record<string, unknown>)[name];
  if (typeof raw !== "string" || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/** The scan budget (QUERY_SCAN_BUDGET_BYTES above), lowered or raised by the var of that name. */
export function queryScanBudget(env: object): number {
  return positiveInt(env, "QUERY_SCAN_BUDGET_BYTES", QUERY_SCAN_BUDGET_BYTES);
}

/** Reads the limits from the worker's vars (any object with string-valued vars). */
export function limitsFrom(env: object): Limits {
  const d = DEFAULT_LIMITS;
  return {
    maxUploadBytes: positiveInt(env, "MAX_UPLOAD_BYTES", d.maxUploadBytes),
    maxContentBytes: positiveInt(env, "MAX_CONTENT_BYTES", d.maxContentBytes),
    maxColumns: positiveInt(env, "MAX_COLUMNS", d.maxColumns),
    maxFieldBytes: positiveInt(env, "MAX_FIELD_BYTES", d.maxFieldBytes),
    maxHeaderBytes: positiveInt(env, "MAX_HEADER_BYTES", d.maxHeaderBytes),
    signatureWindowSeconds: positiveInt(env, "SIGNATURE_WINDOW_SECONDS", d.signatureWindowSeconds),
    compressionLevel: Math.min(9, positiveInt(env, "COMPRESSION_LEVEL", d.compressionLevel)),
    compactionFanIn: Math.max(2, positiveInt(env, "COMPACTION_FAN_IN", d.compactionFanIn)),
    compactionMaxSegments: Math.max(2, positiveInt(env, "COMPACTION_MAX_SEGMENTS", d.compactionMaxSegments)),
    // R2 takes at most 5 GiB in one put; merges are single streamed puts.
    compactionMaxMergedBytes: Math.min(5 * 1024 ** 3, positiveInt(env, "COMPACTION_MAX_MERGED_BYTES", d.compactionMaxMergedBytes)),
    writeGraceSeconds: positiveInt(env, "WRITE_GRACE_SECONDS", d.writeGraceSeconds),
    readGraceSeconds: positiveInt(env, "READ_GRACE_SECONDS", d.readGraceSeconds),
    idempotencyTtlSeconds: positiveInt(env, "IDEMPOTENCY_TTL_SECONDS", d.idempotencyTtlSeconds),
    idempotencyLeaseSeconds: positiveInt(env, "IDEMPOTENCY_LEASE_SECONDS", d.idempotencyLeaseSeconds),
    maxResumableBytes: positiveInt(env, "MAX_RESUMABLE_BYTES", d.maxResumableBytes),
    uploadExpirySeconds: positiveInt(env, "UPLOAD_EXPIRY_SECONDS", d.uploadExpirySeconds),
    ...uploadChunkLimits(env),
    uploadSegmentBytes: positiveInt(env, "UPLOAD_SEGMENT_BYTES", d.uploadSegmentBytes),
  };
}

/** The chunk bounds, with MAX_UPLOAD_CHUNKS raised to what MIN_UPLOAD_CHUNK_BYTES and MAX_RESUMABLE_BYTES need. */
function uploadChunkLimits(env: object): Pick<Limits, "minUploadChunkBytes" | "maxUploadChunks"> {
  const d = DEFAULT_LIMITS;
  const minUploadChunkBytes = positiveInt(env, "MIN_UPLOAD_CHUNK_BYTES", d.minUploadChunkBytes);
  const needed = Math.floor(positiveInt(env, "MAX_RESUMABLE_BYTES", d.maxResumableBytes) / minUploadChunkBytes) + 1;
  return { minUploadChunkBytes, maxUploadChunks: Math.max(needed, positiveInt(env, "MAX_UPLOAD_CHUNKS", d.maxUploadChunks)) };
}

/** How compaction picks segments to merge (src/storage/compaction-plan.ts). */
export interface MergePolicy {
  /** Segments of one tier that make a merge; also the size ratio between tiers. */
  fanIn: number;
  /** A list longer than this merges its cheapest tail even when no tier is full. */
  maxSegments: number;
  /** A segment this large is never copied again, and no merge makes one larger. */
  maxMergedBytes: number;
}

export function mergePolicyFrom(limits: Limits): MergePolicy {
  return { fanIn: limits.compactionFanIn, maxSegments: limits.compactionMaxSegments, maxMergedBytes: limits.compactionMaxMergedBytes };
}

/** How long the storage protocol waits before it may delete an object (docs/storage-protocol.md). */
export interface StorageTimings {
  /** Longer than any write takes: an upload's intent is collectable only after it. */
  writeGraceMs: number;
  /** Longer than any download takes: replaced or deleted objects are kept this long. */
  readGraceMs: number;
}

export function storageTimingsFrom(limits: Limits): StorageTimings {
  return { writeGraceMs: limits.writeGraceSeconds * 1000, readGraceMs: limits.readGraceSeconds * 1000 };
}

/** What a plain `wrangler dev` listens on; used when PUBLIC_ORIGIN is absent or not an origin. */
export const FALLBACK_PUBLIC_ORIGIN = "http://localhost:8787";

/**
 * The one public origin (docs/edge-and-caching.md), from the PUBLIC_ORIGIN var: the only source of absolute URLs
 * in responses. A trailing slash or path is dropped; anything that is not http(s) falls back.
 */
export function publicOrigin(env: object): string {
  const raw: unknown = (env as Record<string, unknown>).PUBLIC_ORIGIN;
  if (typeof raw !== "string") return FALLBACK_PUBLIC_ORIGIN;
  try {
    const url = new URL(raw.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : FALLBACK_PUBLIC_ORIGIN;
  } catch {
    return FALLBACK_PUBLIC_ORIGIN;
  }
}
