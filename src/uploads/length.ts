// The length of a resumable upload (draft-ietf-httpbis-resumable-upload-15 §4.1.3): the bytes
// its client intends to send, indicated by `Upload-Length` on any request, or by
// `Content-Length` on the request that completes it. Every indication must agree with every
// other; once one is known, the offset may not pass it and the upload must end there.
import { ApiError } from "../model/errors.ts";
import { lengthTooLarge } from "./chunk-body.ts";

/** RFC 9651 Integer (§3.3.1), non-negative; anything else is ignored, as the draft says. */
export function sfNonNegativeInteger(value: string | undefined | null): number | null {
  const trimmed = value?.trim() ?? "";
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : null;
}

export function inconsistentLength(detail: string, offset?: number): ApiError {
  return new ApiError("inconsistent_upload_length", detail, {}, offset === undefined ? {} : { "Upload-Offset": String(offset) });
}

/**
 * What one request says of the length: `Upload-Length`, and `Content-Length` when it completes
 * the upload at `offset`. A length past `max` (the most any upload holds) is refused first.
 */
export function indicatedLength(
  request: { uploadLength: string | undefined; contentLength: string | undefined; complete: boolean; offset: number },
  max: number,
): number | null {
  const announced = sfNonNegativeInteger(request.uploadLength);
  if (announced !== null && announced > max) throw lengthTooLarge(announced, max);
  const contentLength = request.complete ? sfNonNegativeInteger(request.contentLength) : null;
  const completing = contentLength === null ? null : request.offset + contentLength;
  if (announced !== null && completing !== null && announced !== completing) {
    throw inconsistentLength(`Upload-Length says ${announced} bytes, but this last chunk ends the upload at ${completing}.`);
  }
  return announced ?? completing;
}

/** The upload's length after this request: the one known, or the one indicated; they must agree. */
export function agreedLength(known: number | null, indicated: number | null, offset: number): number | null {
  if (known !== null && indicated !== null && known !== indicated) {
    throw inconsistentLength(`The upload's length is ${known} bytes; this request indicates ${indicated}.`, offset);
  }
  if (indicated !== null && indicated < offset) throw inconsistentLength(`The upload already holds ${offset} bytes, more than the ${indicated} indicated.`, offset);
  return known ?? indicated;
}
