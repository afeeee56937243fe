// The bounds on a resumable upload's chunks (docs/resumable-uploads.md, "Chunk bounds"): every
// chunk but the last carries at least MIN_UPLOAD_CHUNK_BYTES as sent, and an upload takes at
// most MAX_UPLOAD_CHUNKS, its last included. Both are refused with 413 before the chunk is
// read when its headers tell, and change nothing: the client sends a larger chunk, or the last.
import type { Limits } from "../config.ts";
import { ApiError } from "../model/errors.ts";

/** Refused before any byte is read: a chunk that would pass the count, or a non-final one whose Content-Length is too small. */
export function checkChunkBounds(chunks: number, request: { complete: boolean; contentLength: number | null }, limits: Limits): void {
  const { maxUploadChunks: max } = limits;
  if (chunks + 1 > max || (chunks + 1 === max && !request.complete)) {
    const detail = chunks + 1 > max
      ? `A resumable upload takes at most ${max} chunks, and this one has them all; DELETE it and send the content in larger chunks.`
      : `A resumable upload takes at most ${max} chunks; this is chunk ${max}, so it must be the last (Upload-Complete: ?1).`;
    throw new ApiError("payload_too_large", detail, { limit: "MAX_UPLOAD_CHUNKS", max });
  }
  if (request.contentLength !== null) checkChunkSize(request.contentLength, request.complete, limits);
}

/** A chunk of `bytes` as sent: below the minimum only as the upload's last. */
export function checkChunkSize(bytes: number, complete: boolean, limits: Limits): void {
  const { minUploadChunkBytes: min } = limits;
  if (complete || bytes >= min) return;
  throw new ApiError(
    "payload_too_large",
    `Every chunk of a resumable upload but the last carries at least ${min} bytes (MIN_UPLOAD_CHUNK_BYTES); this one has ${bytes}. Send a larger chunk, or this one with Upload-Complete: ?1.`,
    { limit: "MIN_UPLOAD_CHUNK_BYTES", min },
  );
}
