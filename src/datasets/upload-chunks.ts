// Appending to a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.4): each chunk is
// validated and stored as a segment as it arrives (chunk-ingest.ts: a parted gzip chunk kept as
// sent, any other through the one-request ingest path stopped at the last record end), and lands with a compare-and-swap on the offset. The chunk
// with `Upload-Complete: ?1` scans the carried tail and its bytes to the end, then commits the
// stored segments as ONE version through writeVersion. A CSV error fails the whole upload.
import { limitsFrom, MAX_CARRY_BYTES, storageTimingsFrom } from "../config.ts";
import { ApiError, type ProblemCode, type ProblemExtensions } from "../errors.ts";
import { crc32Combine } from "../storage/crc32.ts";
import { advanceUpload, getUpload, settleUpload, type UploadProgress, type UploadRow } from "../storage/uploads-db.ts";
import type { Caller } from "./access.ts";
import type { AppendSequencerBinding } from "./append-queue.ts";
import type { IngestedContent } from "./ingest.ts";
import { SentBody, tooLarge } from "./chunk-body.ts";
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
  body: ReadableStream<Uint8Array> | null;
  defer: (work: Promise<void>) => void;
}

export type ChunkOutcome = { complete: false; offset: number } | { complete: true; offset: number; answer: WriteAnswer };

type Bindings = { DB: D1Database; CONTENT: R2Bucket; APPEND_SEQUENCER?: AppendSequencerBinding } & object;
type Answers = (kind: UploadRow["kind"]) => (result: WriteResult) => WriteAnswer;

/** Problems that say the content is wrong: they fail the upload, not only the chunk. */
const CONTENT_PROBLEMS = new Set<ProblemCode>([
  "invalid_csv",
  "empty_csv",
  "column_count_mismatch",
  "header_row_in_append",
  "empty_append",
  "schema_mismatch",
  "invalid_schema",
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
  if (upload.state === "completing") throw new ApiError("conflict", "The upload is being committed; HEAD it again shortly.", {}, { "Retry-After": "1" });
  if (request.offset !== upload.offset) throw offsetMismatch(upload.offset);

  const plan = JSON.parse(upload.request) as UploadPlan;
  const expiresAt = now + limits.uploadExpirySeconds * 1000;
  const collectAfter = expiresAt + storageTimingsFrom(limits).writeGraceMs;
  const objects = new UploadedObjects(env, upload.datasetId, storageTimingsFrom(limits));
  const body = new SentBody(request.body, upload.offset, limits.maxResumableBytes);
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
    throw await chunkFailed(env.DB, upload, body, error, expiresAt);
  }

  const progress = nextProgress(upload.progress, ingested);
  let landed: boolean;
  try {
    landed = await advanceUpload(env.DB, upload.id, upload.offset, now, {
      offset: upload.offset + body.bytes,
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
  const stored: IngestedContent = { segments: progress.segments, rawBytes: progress.rawBytes, crc: progress.crc, stats, schema, declared };
  let answer: WriteAnswer;
  try {
    ({ answer } = await writeVersion(env, {
      kind: upload.kind,
      datasetId: upload.datasetId,
      caller: { keyId: upload.keyId, teamId: upload.teamId, userId: upload.userId },
      ifMatch: upload.ifMatch,
      contentType: null,
      body: null,
      stored: { collection: plan.collection, dataset: { ingested: stored, fileName: plan.fileName, typedWithDeclaration: true } },
      answer: answers(upload.kind),
      idempotency: null,
      defer: request.defer,
    }));
  } catch (error: unknown) {
    // Nothing was committed (writeVersion reads an ambiguous commit back): the upload ends here.
    const problem = error instanceof ApiError ? error : new ApiError("internal_error", "The commit failed; the upload changed nothing.");
    await settle(env.DB, upload.id, problem, expiresAt);
    throw problem;
  }
  // Committed: a failure to note it only costs the replay of this answer to a re-sent last chunk.
  await settleUpload(env.DB, upload.id, "done", JSON.stringify(answer), expiresAt).catch((error: unknown) =>
    console.error(JSON.stringify({ event: "upload_settle_failed", upload: upload.id, error: String(error) })),
  );
  return { complete: true, offset, answer };
}

/** The final PATCH sent again after its answer was lost: the same answer; anything else is refused. */
function replayCompletion(upload: UploadRow, request: ChunkRequest): ChunkOutcome {
  if (request.complete && request.offset === upload.offset && upload.outcome !== null) {
    return { complete: true, offset: upload.offset, answer: JSON.parse(upload.outcome) as WriteAnswer };
  }
  throw new ApiError("completed_upload", "The upload is complete; nothing more can be appended.", {}, { "Upload-Offset": String(upload.offset) });
}

function nextProgress(before: UploadProgress, ingested: IngestedUploadChunk): UploadProgress {
  const { segment, crc } = ingested;
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
  };
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
async function chunkFailed(db: D1Database, upload: UploadRow, body: SentBody, error: unknown, expiresAt: number): Promise<unknown> {
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
  await settle(db, upload.id, problem, expiresAt);
  return problem;
}

async function settle(db: D1Database, id: string, problem: ApiError, expiresAt: number): Promise<void> {
  const stored: StoredProblem = { code: problem.code, detail: problem.detail, extensions: problem.extensions };
  await settleUpload(db, id, "failed", JSON.stringify(stored), expiresAt);
}
