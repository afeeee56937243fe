// Appending to a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.4): each chunk is
// validated and stored as a segment as it arrives (chunk-ingest.ts: a parted gzip chunk kept as
// sent, any other through the one-request ingest path stopped at the last record end), held to
// the chunk bounds (bounds.ts), and lands with a compare-and-swap on the offset that also
// rewrites the tail of the segment list (segments.ts merges the small segments). The
// chunk with `Upload-Complete: ?1` scans the carried tail and its bytes to the end, then hands
// the stored segments to the commit (completion.ts). A CSV error fails the whole upload.
import { limitsFrom, MAX_CARRY_BYTES, storageTimingsFrom, type Limits } from "../config.ts";
import { ApiError, type ProblemCode } from "../model/errors.ts";
import { crc32Combine } from "../wire/crc32.ts";
import { advanceUpload, getUpload, getUploadSegments, type FinalScan, type UploadProgress, type UploadRow } from "./store.ts";
import { SentBody, tooLarge } from "./chunk-body.ts";
import { ingestUploadChunk, type IngestedUploadChunk, type UploadChunkOptions } from "./chunk-ingest.ts";
import { withSchemaProblems } from "../write/schema-problems.ts";
import { problemFromStreamError } from "../write/stream-errors.ts";
import { checkChunkBounds, checkChunkSize } from "./bounds.ts";
import { commitUpload, replayCompletion, retakeCompletionOf } from "./completion.ts";
import type { UploadPlan } from "./creation.ts";
import { currentTyping } from "./schema.ts";
import { arrangeSegments } from "./segments.ts";
import { agreedLength, inconsistentLength } from "./length.ts";
import { endedUpload, failUpload, failure, offsetMismatch, ownUpload, type Answers, type Bindings, type ChunkOutcome, type ChunkRequest } from "./state.ts";
import { UploadedObjects } from "../write/ingest/uploaded-objects.ts";
import type { SegmentRow } from "../model/dataset.ts";

/** The whole file's scan is kept for a retaken commit only up to this size as JSON (D1 values are at most 2 MB). */
const MAX_FINAL_SCAN_JSON = 512 * 1024;

/** Problems that say the content is wrong: they fail the upload, not only the chunk. */
const CONTENT_PROBLEMS = new Set<ProblemCode>([
  "invalid_csv",
  "empty_csv",
  "column_count_mismatch",
  "header_row_in_append",
  "empty_append",
  "schema_mismatch",
  "invalid_schema",
  "inconsistent_upload_length",
]);

/** A CSV limit (it names a row) or the upload's size; not a body over the per-request bound, or a long carry. */
function failsUpload(problem: ApiError): boolean {
  if (CONTENT_PROBLEMS.has(problem.code)) return true;
  return problem.code === "payload_too_large" && (problem.extensions.row !== undefined || problem.extensions.limit === "MAX_RESUMABLE_BYTES");
}

export async function appendChunk(env: Bindings, request: ChunkRequest, answers: Answers): Promise<ChunkOutcome> {
  const now = Date.now();
  const limits = limitsFrom(env);
  const upload = await ownUpload(env.DB, request.uploadId, request.caller, now);
  const failed = failure(upload);
  if (failed) throw failed;
  if (upload.state === "done") return replayCompletion(upload, request);
  const expiresAt = now + limits.uploadExpirySeconds * 1000;
  if (upload.state === "completing") return retakeCompletionOf(env, upload, request, answers, { now, expiresAt });
  if (request.offset !== upload.offset) throw offsetMismatch(upload.offset);
  const length = agreedLength(upload.length, request.length, upload.offset);
  checkChunkBounds(upload.chunks, request, limits);
  const listed = await getUploadSegments(env.DB, upload.id);

  const plan = await planNow(env, upload, listed, limits);
  const collectAfter = expiresAt + storageTimingsFrom(limits).writeGraceMs;
  const objects = new UploadedObjects(env, upload.datasetId, storageTimingsFrom(limits));
  const body = new SentBody(request.body, upload.offset, bodyBound(limits.maxResumableBytes, length));
  const chunk: UploadChunkOptions = {
    gzip: plan.gzip,
    final: request.complete,
    carry: upload.carry,
    resume: upload.progress.checkpoint ? { scan: upload.progress.checkpoint, typing: upload.progress.typing } : null,
    rawRoom: limits.maxResumableBytes - upload.progress.rawBytes - upload.carry.length,
    tooLarge: () => tooLarge(limits.maxResumableBytes),
    maxCarryBytes: MAX_CARRY_BYTES,
    mode: plan.appendTo ? { kind: "rows" as const, expectedColumns: plan.appendTo.length, header: plan.appendTo } : { kind: "table" as const },
    typing: plan.typing,
    limits,
    bucket: env.CONTENT,
    reserve: () => objects.reserve(collectAfter),
  };
  let ingested: IngestedUploadChunk;
  try {
    ingested = await withSchemaProblems(upload.datasetId, upload.kind, () => ingestUploadChunk(body.stream, chunk));
  } catch (error: unknown) {
    throw await chunkFailed(env.DB, upload, body, error, { expiresAt, complete: request.complete });
  }

  if (request.complete && length !== null && upload.offset + body.bytes !== length) {
    const short = inconsistentLength(`The upload ends at ${upload.offset + body.bytes} bytes, not at its length of ${length}.`);
    throw await chunkFailed(env.DB, upload, body, short, { expiresAt, complete: request.complete });
  }
  // Known only now when the request did not say its length; what it stored stays an intent.
  checkChunkSize(body.bytes, request.complete, limits);
  const progress = nextProgress(upload.progress, ingested, request.complete);
  let arranged: Awaited<ReturnType<typeof arrangeSegments>>;
  try {
    // An empty segment (a chunk with no record end yet) is left out: the first listed segment
    // must hold the header, as the row reader expects. Its object is collected on its own.
    const added = ingested.segment.rawBytes > 0 ? ingested.segment : null;
    arranged = await arrangeSegments(listed, added, request.complete, { bucket: env.CONTENT, limits, reserve: () => objects.reserve(collectAfter) });
  } catch (error: unknown) {
    console.error(JSON.stringify({ event: "upload_merge_failed", upload: upload.id, error: String(error) }));
    throw new ApiError("service_unavailable", "Storage failed while the chunk's segments were merged; the chunk did not land. Send it again.", {}, { "Retry-After": "1" });
  }
  let landed: boolean;
  try {
    landed = await advanceUpload(env.DB, upload.id, upload.offset, now, {
      offset: upload.offset + body.bytes,
      length: request.complete ? upload.offset + body.bytes : length,
      state: request.complete ? "completing" : "open",
      progress,
      carry: ingested.carry ?? new Uint8Array(0),
      expiresAt,
      collectAfter,
      list: arranged,
      replacedCollectAfter: now + storageTimingsFrom(limits).readGraceMs,
      request: JSON.stringify(plan),
    });
  } catch (error: unknown) {
    console.error(JSON.stringify({ event: "upload_advance_failed", upload: upload.id, error: String(error) }));
    throw new ApiError("service_unavailable", "The database did not answer; HEAD the upload to see whether the chunk landed.", {}, { "Retry-After": "1" });
  }
  if (!landed) throw await lostRace(env.DB, upload.id);
  const offset = upload.offset + body.bytes;
  if (!request.complete) return { complete: false, offset };

  // The last chunk's scan went on from every earlier one: its stats and schema are the whole file's.
  const { stats, schema, declared } = ingested;
  const committing = { ...upload, request: JSON.stringify(plan) };
  return { complete: true, offset, answer: await commitUpload(env, committing, { progress, segments: arranged.segments }, { stats, schema, declared }, answers, expiresAt, request.defer) };
}

/**
 * The upload's plan, with the types an append is held to brought up to the dataset's
 * (schema.ts). Stored rows that no longer fit refuse this chunk only: the upload goes on
 * once a PUT makes them fit again.
 */
async function planNow(env: Bindings, upload: UploadRow, listed: SegmentRow[], limits: Limits): Promise<UploadPlan> {
  const plan = JSON.parse(upload.request) as UploadPlan;
  try {
    const typing = await currentTyping(env, upload.datasetId, plan, listed, limits);
    return typing === plan.typing ? plan : { ...plan, typing };
  } catch (error: unknown) {
    if (error instanceof ApiError) throw error;
    console.error(JSON.stringify({ event: "upload_recheck_failed", upload: upload.id, error: String(error) }));
    throw new ApiError("service_unavailable", "Storage failed while the stored rows were checked again; the chunk did not land. Send it again.", {}, { "Retry-After": "1" });
  }
}

/** What the chunk's bytes may reach: the upload's length when known, else its size limit. */
function bodyBound(maxResumableBytes: number, length: number | null): { max: number; over: () => ApiError } {
  if (length !== null && length < maxResumableBytes) {
    return { max: length, over: () => inconsistentLength(`The upload's length is ${length} bytes; this chunk goes past it.`) };
  }
  return { max: maxResumableBytes, over: () => tooLarge(maxResumableBytes) };
}

function nextProgress(before: UploadProgress, ingested: IngestedUploadChunk, final: boolean): UploadProgress {
  const { segment, crc, stats, schema, declared } = ingested;
  return {
    rawBytes: before.rawBytes + segment.rawBytes,
    crc: crc32Combine(before.crc, crc, segment.rawBytes),
    checkpoint: ingested.checkpoint ?? before.checkpoint,
    typing: ingested.checkpoint ? (ingested.typing ?? null) : before.typing,
    ...(final ? keptScan({ stats, schema, declared }) : {}),
  };
}

/** The whole file's scan, for a retaken commit; left out when too large for the row. */
function keptScan(scan: FinalScan): { final?: FinalScan } {
  return JSON.stringify(scan).length <= MAX_FINAL_SCAN_JSON ? { final: scan } : {};
}

async function lostRace(db: D1Database, id: string): Promise<ApiError> {
  const now = await getUpload(db, id);
  if (!now || now.expiresAt <= Date.now()) return new ApiError("not_found", `No upload ${id}.`);
  return failure(now) ?? offsetMismatch(now.offset);
}

/**
 * A chunk that did not land. Content errors fail the upload, but only once the rest of the
 * body has arrived and matched its Content-Digest (bytes damaged in transit are the chunk's
 * fault, not the content's), and only if no other append landed at this offset meanwhile.
 */
async function chunkFailed(db: D1Database, upload: UploadRow, body: SentBody, error: unknown, at: { expiresAt: number; complete: boolean }): Promise<unknown> {
  const problem = problemFromStreamError(error);
  if (!(problem instanceof ApiError)) {
    console.error(JSON.stringify({ event: "upload_chunk_failed", upload: upload.id, error: String(error) }));
    return new ApiError("service_unavailable", "The chunk did not arrive whole; HEAD the upload and resume from its offset.", {}, { "Retry-After": "1" });
  }
  if (!failsUpload(problem)) return problem;
  try {
    await body.drain();
  } catch (drainError: unknown) {
    const transit = problemFromStreamError(drainError);
    return transit instanceof ApiError ? transit : problem;
  }
  await failUpload(db, upload.id, problem, at.expiresAt);
  return at.complete ? endedUpload(problem) : problem;
}
