// The state a resumable upload answers with, shared by its chunks (chunks.ts) and its
// completion (completion.ts): whose it is, the problem of a failed one, and the types of
// a chunk request and its outcome.
import { ApiError, type ProblemCode, type ProblemExtensions } from "../model/errors.ts";
import { getUpload, settleUpload, type UploadRow } from "./store.ts";
import type { WriteAnswer, WriteResult } from "../write/write-types.ts";
import type { Caller } from "../model/dataset.ts";
import type { AppendSequencerBinding } from "../write/sequencer/client.ts";

export interface ChunkRequest {
  uploadId: string;
  caller: Caller;
  offset: number;
  complete: boolean;
  /** The upload's length as this request indicates it (length.ts), or null. */
  length: number | null;
  /** The chunk's size as sent (`Content-Length`), when the request says it. */
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
  defer: (work: Promise<void>) => void;
}

export type ChunkOutcome = { complete: false; offset: number } | { complete: true; offset: number; answer: WriteAnswer };

export type Bindings = { DB: D1Database; CONTENT: R2Bucket; APPEND_SEQUENCER?: AppendSequencerBinding } & object;
export type Answers = (kind: UploadRow["kind"]) => (result: WriteResult) => WriteAnswer;

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

/** Fails the upload: every later request but DELETE answers `problem`. */
export async function failUpload(db: D1Database, id: string, problem: ApiError, expiresAt: number): Promise<void> {
  const stored: StoredProblem = { code: problem.code, detail: problem.detail, extensions: problem.extensions };
  await settleUpload(db, id, "failed", JSON.stringify(stored), expiresAt);
}

/**
 * The problem that ends an upload whose last chunk was fully received: it comes from processing
 * the whole content, which `Upload-Complete: ?1` tells the client (draft §4.4.2).
 */
export function endedUpload(problem: ApiError): ApiError {
  return new ApiError(problem.code, problem.detail, problem.extensions, { ...problem.headers, "Upload-Complete": "?1" });
}
