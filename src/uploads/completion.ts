// Completing a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.4): the stored
// segments committed as ONE version through writeVersion, whose batch also settles the upload;
// a commit its worker never finished, taken over by the last chunk sent again after a lease
// (upload_commits keeps it to one commit); and what a complete upload answers to more chunks.
import { limitsFrom } from "../config.ts";
import { storedAnswer } from "../write/answers.ts";
import { ApiError } from "../model/errors.ts";
import { getUpload, getUploadSegments, retakeCompletion, type FinalScan, type UploadProgress, type UploadRow } from "./store.ts";
import type { IngestedContent } from "../write/ingest/ingest.ts";
import type { UploadPlan } from "./creation.ts";
import { inconsistentLength } from "./length.ts";
import { currentTyping } from "./schema.ts";
import { endedUpload, failUpload, type Answers, type Bindings, type ChunkOutcome, type ChunkRequest } from "./state.ts";
import { writeVersion } from "../write/write.ts";
import type { WriteAnswer } from "../write/write-types.ts";
import type { SegmentRow } from "../model/dataset.ts";

/**
 * A last chunk's commit not settled after this long is taken to have died with its worker (a
 * commit takes well under a second; the client's retries of a last chunk span ~16 s).
 */
export const COMMIT_LEASE_MS = 10_000;

/**
 * The stored segments committed as one version; the commit's batch settles the upload 'done'
 * with the answer. Any other failure fails the upload with its problem.
 */
export async function commitUpload(
  env: Bindings,
  upload: UploadRow,
  content: { progress: UploadProgress; segments: SegmentRow[] },
  scan: FinalScan,
  answers: Answers,
  expiresAt: number,
  defer: (work: Promise<void>) => void,
): Promise<WriteAnswer> {
  const plan = JSON.parse(upload.request) as UploadPlan;
  const { progress, segments } = content;
  try {
    // A schema-only PUT since the last chunk's check: the rows are checked again, and commit under the dataset's types.
    const typing = await currentTyping(env, upload.datasetId, plan, segments, limitsFrom(env));
    const typed = typing === plan.typing || typing.kind !== "check" ? scan : { ...scan, schema: typing.schema };
    const stored: IngestedContent = { segments, rawBytes: progress.rawBytes, crc: progress.crc, ...typed };
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
    if (current?.state === "done" && current.outcome !== null) return storedAnswer(current.outcome);
    // Nothing was committed (writeVersion reads an ambiguous commit back): the upload ends here.
    const problem = error instanceof ApiError ? error : new ApiError("internal_error", "The commit failed; the upload changed nothing.");
    await failUpload(env.DB, upload.id, problem, expiresAt);
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
export async function retakeCompletionOf(
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
  const segments = await getUploadSegments(env.DB, upload.id);
  const answer = await commitUpload(env, upload, { progress: upload.progress, segments }, scan, answers, at.expiresAt, request.defer);
  return { complete: true, offset: upload.offset, answer };
}

/**
 * A request to a complete upload: the final PATCH sent again, empty, after its answer was lost
 * gets the same answer; content is an inconsistent length (draft §4.4.2); anything else is refused.
 */
export async function replayCompletion(upload: UploadRow, request: ChunkRequest): Promise<ChunkOutcome> {
  if (await hasContent(request.body)) throw appendedToComplete(upload.offset);
  if (request.complete && request.offset === upload.offset && upload.outcome !== null) {
    return { complete: true, offset: upload.offset, answer: storedAnswer(upload.outcome) };
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
