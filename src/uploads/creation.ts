// Creating a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.2, docs/resumable-uploads.md):
// the dataset write request with `Upload-Complete: ?0` and a small JSON body that
// says what the content will be. Checks what the write would check before any byte, so a
// doomed upload is refused up front, and records the upload resource.
import { lengthTooLarge } from "./chunk-body.ts";
import { z } from "@hono/zod-openapi";
import { limitsFrom } from "../config.ts";
import { describeIssue } from "../http/issue-words.ts";
import { ApiError } from "../model/errors.ts";
import { insertUpload, type UploadKind, type UploadRow } from "./store.ts";
import { CollectionSchema, checkCollectionJson, type Collection } from "../write/collection-schema.ts";
import { sanitizeFileName } from "../write/file-name.ts";
import type { TypingPlan } from "../schema/column-typer.ts";
import { checkCollection, checkIfMatch, typingPlan, writableLatest } from "../write/write.ts";
import type { VersionRow } from "../model/dataset.ts";
import type { Caller } from "../model/dataset.ts";

export const UploadCreationSchema = z
  .strictObject({
    collection: CollectionSchema.optional().openapi({ description: "As the multipart `collection` part; `name` is required to create." }),
    fileName: z.string().max(1024).optional().openapi({ description: "The file's name, as the `dataset` part's file name (`dataset.csv` when absent)." }),
    contentType: z.enum(["text/csv", "application/gzip"]).optional().openapi({
      description: "`application/gzip` (or a `.gz` file name): every PATCH carries whole gzip members of the CSV.",
    }),
  })
  .openapi("UploadCreation");
export type UploadCreation = z.infer<typeof UploadCreationSchema>;

/** What an upload keeps from its creation request (the `request` column). */
export interface UploadPlan {
  collection: Collection | null;
  fileName: string;
  gzip: boolean;
  /** Append: the parent's header when the upload began; rows are validated against it. */
  appendTo: string[] | null;
  /** How the cells are typed (docs/column-types.md), fixed when the upload began, as a one-request write would. */
  typing: TypingPlan;
}

const MAX_CREATION_BYTES = 64 * 1024;

/** Reads and validates the creation body (JSON, or empty for an append or PUT without metadata). */
export async function readUploadCreation(body: ReadableStream<Uint8Array> | null): Promise<UploadCreation> {
  const text = body ? await new Response(body).text() : "";
  if (new TextEncoder().encode(text).length > MAX_CREATION_BYTES) throw new ApiError("payload_too_large", `The upload creation body is limited to ${MAX_CREATION_BYTES} bytes.`);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The upload creation body must be a JSON object: {\"collection\", \"fileName\", \"contentType\"}.");
  }
  const collection: unknown = typeof value === "object" && value !== null ? (value as Record<string, unknown>).collection : undefined;
  if (typeof collection === "object" && collection !== null) checkCollectionJson(collection);
  const parsed = UploadCreationSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError("invalid_request", issue ? describeIssue(issue, "field") : "invalid upload creation body");
  }
  return parsed.data;
}

export async function createUpload(
  env: { DB: D1Database } & object,
  request: { kind: UploadKind; datasetId: string; caller: Caller; ifMatch: string | null; creation: UploadCreation; length: number | null },
  now = Date.now(),
): Promise<UploadRow> {
  const { kind, datasetId, caller, ifMatch, creation, length } = request;
  const { maxResumableBytes } = limitsFrom(env);
  if (length !== null && length > maxResumableBytes) throw lengthTooLarge(length, maxResumableBytes);
  const collection = creation.collection ?? null;
  if (collection) checkCollection(kind, collection);
  if (kind === "create" && collection?.name === undefined) throw new ApiError("invalid_request", "collection.name is required to create a dataset.");
  let appendTo: string[] | null = null;
  let parent: VersionRow | null = null;
  if (kind !== "create") {
    const latest = await writableLatest(env.DB, datasetId, caller);
    checkIfMatch(ifMatch, latest.version);
    parent = latest.version;
    if (kind === "append") appendTo = latest.version.columns;
  }
  const typing = typingPlan(kind, parent, collection?.schema ?? null);
  const gzip = creation.contentType === "application/gzip" || (creation.contentType === undefined && /\.gz$/i.test(creation.fileName ?? ""));
  const plan: UploadPlan = { collection, fileName: sanitizeFileName(creation.fileName ?? null, gzip), gzip, appendTo, typing };
  const row: UploadRow = {
    id: crypto.randomUUID(),
    teamId: caller.teamId,
    userId: caller.userId,
    keyId: caller.keyId,
    kind,
    datasetId,
    ifMatch,
    request: JSON.stringify(plan),
    offset: 0,
    length,
    chunks: 0,
    state: "open",
    progress: { rawBytes: 0, crc: 0, checkpoint: null, typing: null },
    carry: new Uint8Array(0),
    outcome: null,
    created: now,
    expiresAt: now + limitsFrom(env).uploadExpirySeconds * 1000,
  };
  await insertUpload(env.DB, row);
  return row;
}
