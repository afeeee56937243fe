// Reads a write request's multipart body part by part as it streams (docs/api.md#writes): `collection`
// (JSON, validated by CollectionSchema) and `dataset` (CSV or gzip, handed to ingest-dataset.ts
// as it streams), so no part is ever held whole in memory.
import type { Limits } from "../config.ts";
import { describeIssue } from "../http/issue-words.ts";
import { ApiError } from "../model/errors.ts";
import { boundaryFrom, parseMultipart, type MultipartPart } from "./multipart/index.ts";
import { CollectionSchema, checkCollectionJson, type Collection } from "./collection-schema.ts";
import { sanitizeFileName } from "./file-name.ts";
import { problemFromStreamError } from "./stream-errors.ts";

const MAX_COLLECTION_BYTES = 64 * 1024;

export interface DatasetPart {
  fileName: string;
  /** Sent as gzip (`application/gzip` or a `.gz` name): ingest-dataset.ts picks the path. */
  compressed: boolean;
  /** The part's bytes as sent. */
  body: ReadableStream<Uint8Array>;
}

export interface Upload<T> {
  collection: Collection | null;
  dataset: T | null;
}

/**
 * Walks the parts in order. `onDataset` consumes the dataset part's stream (it may run before
 * the collection part is seen); `onCollection` may reject a collection early.
 */
export async function readUpload<T>(
  request: { contentType: string | null; body: ReadableStream<Uint8Array> | null },
  limits: Limits,
  handlers: { onCollection?: (collection: Collection) => void; onDataset: (part: DatasetPart) => Promise<T> },
): Promise<Upload<T>> {
  const mediaType = (request.contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "multipart/form-data") {
    throw new ApiError("unsupported_media_type", "Write bodies must be multipart/form-data with parts `collection` and `dataset`.");
  }
  const boundary = boundaryFrom(request.contentType);
  if (!boundary) throw new ApiError("invalid_request", "The multipart Content-Type has no valid boundary.");
  if (!request.body) throw new ApiError("invalid_request", "The request has no body.");

  const upload: Upload<T> = { collection: null, dataset: null };
  let sawCollection = false;
  let sawDataset = false;
  try {
    for await (const part of parseMultipart(request.body, boundary)) {
      if (part.name === "collection") {
        if (sawCollection) throw new ApiError("invalid_request", "The `collection` part appears twice.");
        sawCollection = true;
        upload.collection = await readCollection(part);
        handlers.onCollection?.(upload.collection);
      } else if (part.name === "dataset") {
        if (sawDataset) throw new ApiError("invalid_request", "The `dataset` part appears twice.");
        sawDataset = true;
        upload.dataset = await handlers.onDataset(datasetPart(part));
      } else {
        throw new ApiError("invalid_request", `Unknown multipart part \`${part.name}\`; expected \`collection\` and \`dataset\`.`);
      }
    }
  } catch (error: unknown) {
    throw problemFromStreamError(error);
  }
  return upload;
}

async function readCollection(part: MultipartPart): Promise<Collection> {
  const text = await readSmallText(part.body, MAX_COLLECTION_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "The `collection` part is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("invalid_request", "The `collection` part must be a JSON object.");
  }
  checkCollectionJson(value);
  const parsed = CollectionSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // A malformed declaration is the schema's problem (docs/column-types.md), not the request's.
    throw new ApiError(issue?.path[0] === "schema" ? "invalid_schema" : "invalid_request", issue ? describeIssue(issue, "field", { scope: "collection" }) : "collection: invalid");
  }
  return parsed.data;
}

async function readSmallText(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let text = "";
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new ApiError("payload_too_large", `The \`collection\` part is limited to ${maxBytes} bytes.`, { limit: maxBytes });
    }
    try {
      text += decoder.decode(value, { stream: true });
    } catch {
      throw new ApiError("invalid_request", "The `collection` part is not valid UTF-8.");
    }
  }
  return text + decoder.decode();
}

function isGzipPart(part: MultipartPart): boolean {
  const type = (part.contentType ?? "").split(";")[0]?.trim().toLowerCase();
  return type === "application/gzip" || type === "application/x-gzip" || /\.gz$/i.test(part.fileName ?? "");
}

function datasetPart(part: MultipartPart): DatasetPart {
  const compressed = isGzipPart(part);
  return { fileName: sanitizeFileName(part.fileName, compressed), compressed, body: part.body };
}
