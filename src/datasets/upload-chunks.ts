// Appending to a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.4): each chunk is
// validated and stored as a segment as it arrives (chunk-ingest.ts: a parted gzip chunk kept as
// sent, any other through the one-request ingest path stopped at the last record end), and lands with a compare-and-swap on the offset. The chunk
// with `Upload-Complete: ?1` scans the carried tail and its bytes to the end, then commits the
// stored segments as ONE version through writeVersion, which settles the upload in the same
// batch. A commit its worker never finished is run again by the next last chunk after a lease
// (upload_commits keeps it to one commit). A CSV error fails the whole upload.
import { limitsFrom, MAX_CARRY_BYTES, storageTimingsFrom } from "../config.ts";
import { ApiError, type ProblemCode, type ProblemExtensions } from "../errors.ts";
import { crc32Combine } from "../storage/crc32.ts";
import { advanceUpload, getUpload, retakeCompletion, settleUpload, type FinalScan, type UploadProgress, type UploadRow } from "../storage/uploads-db.ts";
import type { Caller } from "./access.ts";
import type { AppendSequencerBinding } from "./append-queue.ts";
import type { IngestedContent } from "./ingest.ts";
import { SentBody, tooLarge } from "./chunk-body.ts";
import { agreedLength, inconsistentLength } from "./upload-length.ts";
import { ingestUploadChunk, type IngestedUploadChunk, type UploadChunkOptions } from "./chunk-ingest.ts";
import { withSchemaProblems } from "./schema-problems.ts";
import { problemFromStreamError } from "./stream-errors.ts";
import type { UploadPlan } from "./upload-creation.ts";
import { UploadedObjects } from "./uploaded-objects.ts";
import { writeVersion } from "./write.ts";
import type { WriteAnswer, WriteResult } from "./write-types.ts";

export interface ChunkRequest {
  uploadId: string;
  caller: Caller;
  offset: number;
  complete: boolean;
  /** The upload's length as this request indicates it (upload-length.ts), or null. */
  length: number | null;
  body: ReadableStream<Uint8Array> | null;
  defer: (work: Promise<void>) => void;
}

export type ChunkOutcome = { complete: false; offset: number } | { complete: true; offset: number; answer: WriteAnswer };

type Bindings = { DB: D1Database; CONTENT: R2Bucket; APPEND_SEQUENCER?: AppendSequencerBinding } & object;
type Answers = (kind: UploadRow["kind"]) => (result: WriteResult) => WriteAnswer;

/**
 * A last chunk's commit not settled after this long is taken to have died with its worker (a
 * commit takes well under a second; the client's retries of a last chunk span ~16 s).
 */
export const COMMIT_LEASE_MS = 10_000;
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

interface StoredProblem {
  code: ProblemCode;
  detail: string;
  extensions: ProblemExtensions;
}

/** The caller's team's upload; anyone else's, a missing or an expired one: 404. */
export async function ownUpload(db: D1Database, id: string, caller: Caller, now = Date.now()): Promise<UploadRow> {
  const upload = await getUpload(db, id);
  if (!upload || upload.teamId !== caller.teamId || upload.expiresAt <= now) throw new ApiError("not_found", `No upload ${id}.`);
  return upload;
}

/** A failed upload answers with its problem to every request but DELETE. */
export function failure(upload: UploadRow): ApiError | null {
  if (upload.state !== "failed" || upload.outcome === null) return null;
  const stored = JSON.parse(upload.outcome) as StoredProblem;
  return new ApiError(stored.code, stored.detail, stored.extensions);
}

export function offsetMismatch(offset: number): ApiError {
  return new ApiError("mismatching_upload_offset", `The upload is at offset ${offset}; resume from there.`, { offset }, { "Upload-Offset": String(offset) });
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

  const plan = JSON.parse(upload.request) as UploadPlan;
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
  const progress = nextProgress(upload.progress, ingested, request.complete);
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
  return { complete: true, offset, answer: await commitUpload(env, upload, progress, { stats, schema, declared }, answers, expiresAt, request.defer) };
}

/**
 * The stored segments committed as one version; the commit's batch settles the upload 'done'
 * with the answer. Any other failure fails the upload with its problem.
 */
async function commitUpload(
  env: Bindings,
  upload: UploadRow,
  progress: UploadProgress,
  scan: FinalScan,
  answers: Answers,
  expiresAt: number,
  defer: (work: Promise<void>) => void,
): Promise<WriteAnswer> {
  const plan = JSON.parse(upload.request) as UploadPlan;
  const stored: IngestedContent = { segments: progress.segments, rawBytes: progress.rawBytes, crc: progress.crc, ...scan };
  try {
    const { answer } = await writeVersion(env, {
      kind: upload.kind,
      datasetId: upload.datasetId,
      caller: { keyId: upload.keyId, teamId: upload.teamId, userId: upload.userId },
      ifMatch: upload.ifMatch,
      contentType: null,
      body: null,
      stored: { collection: plan.collection, dataset: { ingested: stored, fileName: plan.fileName, typedWithDeclaration: true } },
      answer: answers(upload.kind),
      idempotency: null,
      settlesUpload: { uploadId: upload.id, expiresAt },
      defer,
    });
    return answer;
  } catch (error: unknown) {
    // Another commit of this upload may have landed first (its batch settled it): that answer stands.
    const current = await getUpload(env.DB, upload.id).catch(() => null);
    if (current?.state === "done" && current.outcome !== null) return JSON.parse(current.outcome) as WriteAnswer;
    // Nothing was committed (writeVersion reads an ambiguous commit back): the upload ends here.
    const problem = error instanceof ApiError ? error : new ApiError("internal_error", "The commit failed; the upload changed nothing.");
    await settle(env.DB, upload.id, problem, expiresAt);
    throw endedUpload(problem);
  }
}

/**
 * A request to an upload being committed. Within the lease: 409, HEAD again shortly. After it,
 * the commit's worker is taken to be dead, since a landed commit would have settled the upload:
 * the last chunk sent again (empty, at the final offset) takes the commit over and runs it from
 * the stored scan. Should the first worker only have been slow, upload_commits refuses the
 * second of the two commits as a whole.
 */
async function retakeCompletionOf(
  env: Bindings,
  upload: UploadRow,
  request: ChunkRequest,
  answers: Answers,
  at: { now: number; expiresAt: number },
): Promise<ChunkOutcome> {
  const busy = new ApiError("conflict", "The upload is being committed; HEAD it again shortly.", {}, { "Retry-After": "1" });
  const since = upload.expiresAt - limitsFrom(env).uploadExpirySeconds * 1000;
  const scan = upload.progress.final;
  if (!request.complete || request.offset !== upload.offset || scan === undefined || at.now - since < COMMIT_LEASE_MS) throw busy;
  if (await hasContent(request.body)) throw appendedToComplete(upload.offset);
  if (!(await retakeCompletion(env.DB, upload.id, upload.expiresAt, at.expiresAt))) throw busy;
  console.log(JSON.stringify({ event: "upload_commit_retaken", upload: upload.id, since }));
  const answer = await commitUpload(env, upload, upload.progress, scan, answers, at.expiresAt, request.defer);
  return { complete: true, offset: upload.offset, answer };
}

/**
 * A request to a complete upload: the final PATCH sent again, empty, after its answer was lost
 * gets the same answer; content is an inconsistent length (draft §4.4.2); anything else is refused.
 */
async function replayCompletion(upload: UploadRow, request: ChunkRequest): Promise<ChunkOutcome> {
  if (await hasContent(request.body)) throw appendedToComplete(upload.offset);
  if (request.complete && request.offset === upload.offset && upload.outcome !== null) {
    return { complete: true, offset: upload.offset, answer: JSON.parse(upload.outcome) as WriteAnswer };
  }
  throw new ApiError("completed_upload", "The upload is complete; nothing more can be appended.", {}, { "Upload-Offset": String(upload.offset) });
}

function appendedToComplete(offset: number): ApiError {
  return inconsistentLength(`The upload is complete at ${offset} bytes; nothing more can be appended.`, offset);
}

/** Whether a body holds any byte (it is read to its first non-empty chunk, then let go). */
async function hasContent(body: ReadableStream<Uint8Array> | null): Promise<boolean> {
  if (!body) return false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    if (value.length > 0) {
      await reader.cancel().catch(() => {});
      return true;
    }
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
  // An empty segment (a chunk with no record end yet) is left out: the first listed segment
  // must hold the header, as the row reader expects. Its object is collected with the upload's.
  const keep = segment.rawBytes > 0;
  return {
    segments: keep ? [...before.segments, segment] : before.segments,
    rawBytes: before.rawBytes + segment.rawBytes,
    crc: crc32Combine(before.crc, crc, segment.rawBytes),
    checkpoint: ingested.checkpoint ?? before.checkpoint,
    typing: ingested.checkpoint ? (ingested.typing ?? null) : before.typing,
    keys: [...before.keys, ...ingested.keys],
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
  await settle(db, upload.id, problem, at.expiresAt);
  return at.complete ? endedUpload(problem) : problem;
}

/**
 * The problem that ends an upload whose last chunk was fully received: it comes from processing
 * the whole content, which `Upload-Complete: ?1` tells the client (draft §4.4.2).
 */
function endedUpload(problem: ApiError): ApiError {
  return new ApiError(problem.code, problem.detail, problem.extensions, { ...problem.headers, "Upload-Complete": "?1" });
}

async function settle(db: D1Database, id: string, problem: ApiError, expiresAt: number): Promise<void> {
  const stored: StoredProblem = { code: problem.code, detail: problem.detail, extensions: problem.extensions };
  await settleUpload(db, id, "failed", JSON.stringify(stored), expiresAt);
}
