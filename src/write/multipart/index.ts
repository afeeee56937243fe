// Streaming multipart/form-data (RFC 7578; boundary syntax of RFC 2046 §5.1.1). A Worker's
// `request.formData()` buffers the whole body, which a 100 MiB upload cannot afford; this
// parser holds one chunk plus a few bytes and hands each part's body out as a stream.

import { DelimiterFinder, isValidBoundary } from "./delimiter.ts";
import { MultipartParser } from "./parser.ts";
import type { MultipartPart } from "./parser.ts";

export { boundaryFrom } from "./delimiter.ts";
export { MultipartError } from "./part-headers.ts";
export type { MultipartErrorReason } from "./part-headers.ts";
export type { MultipartPart } from "./parser.ts";

export interface MultipartLimits {
  /** Bytes of one part's header section, blank line included (and of padding after a boundary). */
  maxHeaderBytes?: number;
  maxParts?: number;
}

export const MULTIPART_DEFAULT_LIMITS: Required<MultipartLimits> = {
  maxHeaderBytes: 16 * 1024,
  maxParts: 64,
};

/**
 * Parts of a multipart/form-data body, in order, pulled from `body` only as they are read:
 * backpressure reaches the source. Each part's `body` must be read to its end or cancelled
 * before the next part is requested; a body skipped unread is drained, and one abandoned
 * half-read errors with reason `cancelled`. Malformed input rejects with a MultipartError; an
 * error of the source rejects unchanged; either reaches the current part's body reader and the
 * iterator alike, so a truncated upload never looks complete. The epilogue is read to the end of
 * the source before the last body closes. Leaving the loop early cancels the source.
 *
 * Throws a TypeError at once when `boundary` is not valid per RFC 2046 §5.1.1.
 */
export function parseMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  limits: MultipartLimits = {},
): AsyncIterable<MultipartPart> {
  if (!isValidBoundary(boundary)) throw new TypeError("not a valid multipart boundary (RFC 2046 §5.1.1)");
  const finder = new DelimiterFinder(boundary);
  const maxHeaderBytes = limits.maxHeaderBytes ?? MULTIPART_DEFAULT_LIMITS.maxHeaderBytes;
  const maxParts = limits.maxParts ?? MULTIPART_DEFAULT_LIMITS.maxParts;
  return iterateParts(() => new MultipartParser(body, finder, maxHeaderBytes, maxParts));
}

async function* iterateParts(start: () => MultipartParser): AsyncGenerator<MultipartPart, void, undefined> {
  const parser = start();
  try {
    for (let part = await parser.nextPart(); part !== null; part = await parser.nextPart()) yield part;
  } finally {
    await parser.close();
  }
}
