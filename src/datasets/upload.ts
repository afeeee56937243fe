// Reads a write request's multipart body part by part as it streams (SPEC B2): `collection`
// (JSON, validated by CollectionSchema) and `dataset` (CSV, or gzip-compressed CSV decompressed
// on the fly and bounded by MAX_CONTENT_BYTES). The dataset part goes straight into ingest, so
// no part is ever held whole in memory.
import type { Limits } from "../config.ts";
import { ApiError } from "../errors.ts";
import { byteLimitStream } from "../http/byte-limit.ts";
import { boundaryFrom, parseMultipart, type MultipartPart } from "../http/multipart.ts";
import { CollectionSchema, type Collection } from "./collection-schema.ts";
import { sanitizeFileName } from "./file-name.ts";
import { problemFromStreamError } from "./stream-errors.ts";

const MAX_COLLECTION_BYTES = 64 * 1024;

export interface DatasetPart {
  fileName: string;
  content: ReadableStream<Uint8Array>;
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
        upload.dataset = await handlers.onDataset(datasetPart(part, limits));
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
  const parsed = CollectionSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `collection.${issue.path.join(".")}: ` : "collection: ";
    // A malformed declaration is the schema's problem (SPEC C2), not the request's.
    throw new ApiError(issue?.path[0] === "schema" ? "invalid_schema" : "invalid_request", where + (issue?.message ?? "invalid"));
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

function datasetPart(part: MultipartPart, limits: Limits): DatasetPart {
  const compressed = isGzipPart(part);
  const fileName = sanitizeFileName(part.fileName, compressed);
  const tooLarge = () =>
    new ApiError("payload_too_large", `Dataset content is limited to ${limits.maxContentBytes} bytes uncompressed.`, {
      limit: limits.maxContentBytes,
    });
  let content = part.body;
  if (compressed) content = gunzip(content);
  return { fileName, content: content.pipeThrough(byteLimitStream(limits.maxContentBytes, tooLarge)) };
}

/** Decompresses a client-gzipped part; corrupt gzip becomes a 400, other errors pass unchanged. */
export function gunzip(compressed: ReadableStream<Uint8Array>, corrupt = "The `dataset` part is not valid gzip."): ReadableStream<Uint8Array> {
  let upstreamError: unknown = null;
  const source = compressed.getReader();
  const tapped = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error: unknown) {
          upstreamError = error;
          throw error;
        }
      },
      // workerd's pipeTo cancels `tapped` for a failed decompressor only once its pending read
      // settles, and when readUpload gives up on corrupt gzip that read fails because the parser
      // errors the unfinished part (MultipartParser.close). Cancelling the now-errored part
      // rejects with that error, and the pipe leaves the rejection unhandled. The same error
      // already reached the pull above and readUpload's own catch, so it is dropped here.
      cancel: (reason) => source.cancel(reason).catch(() => {}),
    },
    { highWaterMark: 0 },
  );
  const decompressor = new DecompressionStream("gzip");
  // The pipe's own failure reaches the reader below; handling it here keeps an abandoned
  // upload from surfacing as an unhandled rejection.
  tapped.pipeTo(decompressor.writable).catch(() => {});
  const inflated = decompressor.readable.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await inflated.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error: unknown) {
          if (upstreamError !== null) throw upstreamError;
          throw new ApiError("invalid_request", corrupt);
        }
      },
      cancel: (reason) => inflated.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
