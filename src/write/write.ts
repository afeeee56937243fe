// The one owner of the write protocol (docs/storage-protocol.md): create, update (PUT) and append
// run the same steps. Routes only parse the request, call `writeVersion` and send its answer.
//
//   read the dataset and its latest version (one round trip); refuse If-Match before any byte
//   for each uploaded object: record its intent, then stream it into R2
//     (a resumable upload's content is already stored, chunk by chunk: `stored`)
//   derive the version from the parent; commit it with the compare-and-swap, the intents'
//     claim and the Idempotency-Key's answer in one D1 batch
//     (appends: through the dataset's sequencer, which commits the appends queued at the same
//     time as consecutive versions in one batch — src/write/sequencer/durable-object.ts)
//   lost the race → read the latest again and derive again (412 instead under If-Match)
//   ambiguous D1 error → read the version back: committed means committed
//   append committed → compaction enqueued after the response (src/maintenance/after-commit.ts)
import { limitsFrom, mergePolicyFrom, storageTimingsFrom, type Limits } from "../config.ts";
import { ApiError } from "../model/errors.ts";
import { scheduleAfterCommit, type AfterCommitBindings } from "../maintenance/after-commit.ts";
import { drainAfterCommit, type DrainBindings } from "../changes/webhooks/drain.ts";
import type { TypingPlan } from "../schema/column-typer.ts";
import type { DeclaredSchema } from "../schema/declared.ts";
import { getLatestState, getVersionSegmentsWithParts } from "../storage/datasets-db.ts";
import type { Collection } from "./collection-schema.ts";
import { INFER_ALL, contentOf, type IngestedContent, type IngestedSegment } from "./ingest/ingest.ts";
import { ingestDataset } from "./ingest/ingest-dataset.ts";
import { typeStoredContent, type Typed } from "./ingest/retype.ts";
import { withSchemaProblems } from "./schema-problems.ts";
import { readUpload } from "./request-body.ts";
import { UploadedObjects } from "./ingest/uploaded-objects.ts";
import { commitOrReadBack, nextVersion, publishesHistory } from "./commit.ts";
import { appendedContent, keptContent, replacedContent, retypedContent, type DerivedContent } from "./ingest/version-content.ts";
import type { IdempotencyHold, UploadSettlement, WriteAnswer, WriteKind, WriteResult } from "./write-types.ts";
import type { VersionRow } from "../model/dataset.ts";
import type { Caller } from "../model/dataset.ts";
import { type AppendSequencerBinding, commitQueuedAppend } from "./sequencer/client.ts";

export type { IdempotencyHold, WriteAnswer, WriteKind, WriteResult } from "./write-types.ts";

export interface WriteRequest<Body extends object = object> {
  kind: WriteKind;
  /** A fresh id for a create. */
  datasetId: string;
  caller: Caller;
  ifMatch: string | null;
  contentType: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** Content already validated, typed and in R2 (a resumable upload, src/uploads/chunks.ts) instead of a multipart body. */
  stored?: StoredContribution;
  answer: (result: WriteResult) => WriteAnswer<Body>;
  idempotency: IdempotencyHold | null;
  /** The resumable upload the commit completes, settled in the commit's batch. */
  settlesUpload?: UploadSettlement;
  /** Runs work after the response is sent (ctx.waitUntil). */
  defer: (work: Promise<void>) => void;
}

export type WriteBindings = AfterCommitBindings & DrainBindings & { APPEND_SEQUENCER?: AppendSequencerBinding } & object;

interface Contribution {
  collection: Collection | null;
  dataset: { ingested: IngestedSegment | IngestedContent; fileName: string; typedWithDeclaration: boolean } | null;
}

/** "Already-stored segments": every object recorded as an intent, none claimed yet, typed under the upload's plan. */
export interface StoredContribution extends Contribution {
  dataset: { ingested: IngestedContent; fileName: string; typedWithDeclaration: true };
}

const MAX_ATTEMPTS = 20;

export async function writeVersion<Body extends object>(
  env: WriteBindings,
  request: WriteRequest<Body>,
): Promise<{ result: WriteResult; answer: WriteAnswer<Body> }> {
  const limits = limitsFrom(env);
  const timings = storageTimingsFrom(limits);
  let latest = request.kind === "create" ? null : await writableLatest(env.DB, request.datasetId, request.caller);
  if (latest) checkIfMatch(request.ifMatch, latest.version);
  const objects = new UploadedObjects(env, request.datasetId, timings);
  const parent = latest?.version ?? null;
  /** `collection.schema` when the collection part came before the dataset part. */
  let declaredFirst: Collection["schema"] | null = null;
  const upload: Contribution = request.stored ?? await storageFailuresAsUnavailable(
    withSchemaProblems(request.datasetId, request.kind, () =>
      readUpload({ contentType: request.contentType, body: request.body }, limits, {
        onCollection: (collection) => {
          checkCollection(request.kind, collection);
          declaredFirst = collection.schema ?? null;
        },
        onDataset: async (part) => {
          const mode =
            request.kind === "append" && parent
              ? { kind: "rows" as const, expectedColumns: parent.columns.length, header: parent.columns }
              : { kind: "table" as const };
          const typing = typingPlan(request.kind, parent, declaredFirst);
          const reserve = () => objects.reserve();
          const ingested = await ingestDataset(part, { mode, typing, limits, bucket: env.CONTENT, reserve });
          return { ingested, fileName: part.fileName, typedWithDeclaration: declaredFirst !== null };
        },
      }),
    ),
  );
  checkParts(request.kind, upload);
  const declared = upload.collection?.schema;
  if (declared && upload.dataset && !upload.dataset.typedWithDeclaration) {
    // The declaration came after the content: check the stored upload against it now.
    const { segments } = contentOf(upload.dataset.ingested);
    const typed = await storageFailuresAsUnavailable(
      withSchemaProblems(request.datasetId, request.kind, () => typeStoredContent(env.CONTENT, segments, { kind: "infer", declared: declarationOf(declared) }, limits)),
    );
    Object.assign(upload.dataset.ingested, typed);
  }
  // The Parquet twin, and compaction after an append: enqueued after the answer, never on its path (after-commit.ts).
  // And the webhook drain, which moves the commit's event to the delivery queue (changes/webhooks/drain.ts).
  const afterCommit = (result: WriteResult) => {
    scheduleAfterCommit(env, request.defer, result.dataset.id, result.version.id, request.kind === "append", mergePolicyFrom(limits), timings);
    drainAfterCommit(env, request.defer);
  };

  if (request.kind === "append" && upload.dataset && env.APPEND_SEQUENCER) {
    const { result, answer } = await commitQueuedAppend(env.APPEND_SEQUENCER, {
      datasetId: request.datasetId,
      caller: { teamId: request.caller.teamId, userId: request.caller.userId },
      ifMatch: request.ifMatch,
      collection: upload.collection,
      ingested: upload.dataset.ingested,
      idempotency: request.idempotency,
      settles: request.settlesUpload ?? null,
    }, env.DB);
    afterCommit(result);
    // The sequencer built the answer before its commit with appendAnswer, the one answer an append has.
    return { result, answer: answer as WriteAnswer<Body> };
  }

  const retype = schemaOnly(upload) ? retyper(env, request.datasetId, declarationOf(upload.collection!.schema!), limits) : null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const derived = retype && latest ? retypedContent(latest.version, await retype(latest.version)) : await deriveContent(request.kind, latest?.version ?? null, upload, objects);
    const result = nextVersion(request.datasetId, request.caller, latest, upload.collection, derived);
    const answer = request.answer(result);
    const publishHistory = publishesHistory(upload.collection);
    const outcome = await commitOrReadBack(env.DB, [
      { kind: request.kind, result, parent: latest?.version ?? null, creates: latest === null, derived, idempotency: request.idempotency, settles: request.settlesUpload ?? null, answer, publishHistory },
    ]);
    if (outcome === "committed") {
      afterCommit(result);
      return { result, answer };
    }
    if (outcome === "gone") throw new ApiError("not_found", `No dataset ${request.datasetId}.`);
    if (outcome === "unclaimable") throw unclaimable();
    if (request.ifMatch !== null) throw new ApiError("precondition_failed", "Another write committed a newer version first.");
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
    latest = await getLatestState(env.DB, request.datasetId);
    if (!latest) throw new ApiError("not_found", `No dataset ${request.datasetId}.`);
  }
  throw new ApiError("conflict", "Too many concurrent writes to this dataset; retry.", {}, { "Retry-After": "1" });
}

export function unclaimable(): ApiError {
  return new ApiError("conflict", "The upload took longer than the server keeps unfinished uploads; send it again.");
}

/** R2 or D1 failing while the upload streams: nothing was committed, so the client may retry. */
async function storageFailuresAsUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error: unknown) {
    if (error instanceof ApiError) throw error;
    console.error(JSON.stringify({ event: "upload_failed", error: String(error) }));
    throw new ApiError("service_unavailable", "Storage failed during the upload; the request changed nothing. Retry.", {}, { "Retry-After": "1" });
  }
}

/** Writes need the owning team: another team gets 404 for a private dataset, 403 for a public one. */
export async function writableLatest(db: D1Database, datasetId: string, caller: Caller): Promise<WriteResult> {
  const latest = await getLatestState(db, datasetId);
  if (!latest) throw new ApiError("not_found", `No dataset ${datasetId}.`);
  if (latest.dataset.teamId !== caller.teamId) {
    if (latest.dataset.visibility !== "public") throw new ApiError("not_found", `No dataset ${datasetId}.`);
    throw new ApiError("forbidden", `Dataset ${datasetId} belongs to another team.`);
  }
  return latest;
}

export function checkIfMatch(ifMatch: string | null, latest: VersionRow): void {
  if (ifMatch !== null && ifMatch !== latest.id) {
    throw new ApiError("precondition_failed", `If-Match names ${ifMatch} but the latest version is ${latest.id}.`);
  }
}

/**
 * How the upload's cells are typed (docs/column-types.md): an append is held to the stored schema; a create
 * or replacement infers what its declaration (else the parent's, for the columns it still has)
 * does not declare.
 */
export function typingPlan(kind: WriteKind, parent: VersionRow | null, declared: Collection["schema"] | null): TypingPlan {
  if (kind === "append" && parent) return { kind: "check", schema: parent.schema };
  if (declared) return { kind: "infer", declared: declarationOf(declared) };
  if (parent?.declared) return { kind: "infer", declared: parent.declared, carried: true };
  return INFER_ALL;
}

/** An empty declaration (`{"fields": []}`) clears the one a dataset had. */
function declarationOf(schema: NonNullable<Collection["schema"]>): DeclaredSchema | null {
  if (schema.fields.length === 0 && schema.missingValues === undefined) return null;
  return schema.missingValues === undefined ? { fields: schema.fields } : { fields: schema.fields, missingValues: schema.missingValues };
}

function schemaOnly(upload: Contribution): boolean {
  return upload.dataset === null && upload.collection?.schema !== undefined;
}

/** Types a parent's stored content under `declared`; once per parent, as a lost race re-derives. */
function retyper(env: WriteBindings, datasetId: string, declared: DeclaredSchema | null, limits: Limits): (parent: VersionRow) => Promise<Typed> {
  const done = new Map<string, Typed>();
  return async (parent) => {
    const known = done.get(parent.id);
    if (known) return known;
    const segments = await getVersionSegmentsWithParts(env.DB, parent.id);
    const typed = await storageFailuresAsUnavailable(
      withSchemaProblems(datasetId, "update", () => typeStoredContent(env.CONTENT, segments, { kind: "infer", declared }, limits)),
    );
    done.set(parent.id, typed);
    return typed;
  };
}

export function checkCollection(kind: WriteKind, collection: Collection): void {
  if (kind === "append" && collection.schema !== undefined) {
    throw new ApiError("invalid_request", "collection.schema: an append is held to the dataset's schema; change the types with a PUT that sends only the collection.");
  }
  if (kind === "create" && collection.name === undefined) throw new ApiError("invalid_request", "collection.name is required to create a dataset.");
  // docs/api.md#who-sees-what: publishing the drafts is for a write that publishes; a create has none.
  if (kind === "create" && collection.history !== undefined) throw new ApiError("invalid_request", "collection.history: a new dataset has no earlier versions to publish.");
}

function checkParts(kind: WriteKind, upload: Contribution): void {
  if (kind === "create") {
    if (!upload.collection) throw new ApiError("invalid_request", "The `collection` part is required.");
    checkCollection(kind, upload.collection);
    if (!upload.dataset) throw new ApiError("invalid_request", "The `dataset` part is required.");
  } else if (kind === "append") {
    if (!upload.dataset) throw new ApiError("invalid_request", "The `dataset` part is required to append.");
  } else if (!upload.collection && !upload.dataset) {
    throw new ApiError("invalid_request", "Send a `collection` part, a `dataset` part, or both.");
  }
}

async function deriveContent(kind: WriteKind, parent: VersionRow | null, upload: Contribution, objects: UploadedObjects): Promise<DerivedContent> {
  if (kind === "append" && parent && upload.dataset) return appendedContent(parent, upload.dataset.ingested, objects.lineBreak);
  if (upload.dataset) return replacedContent(upload.dataset.ingested, upload.dataset.fileName);
  if (!parent) throw new Error("a write without content needs a parent version");
  return keptContent(parent);
}
