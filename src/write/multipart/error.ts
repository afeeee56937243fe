// The one error the multipart parser raises for malformed input (RFC 7578, RFC 2046 §5.1.1),
// with an enumerated reason so a route can map every case to `invalid_request` without
// reading message text. Errors from the source stream are never wrapped in it.

export type MultipartErrorReason =
  /** The body ended before any `--boundary` line was seen. */
  | "missing_boundary"
  /** A boundary not followed by `--` or by optional padding and CRLF (RFC 2046 §5.1.1). */
  | "garbled_boundary"
  /** A part without `Content-Disposition: form-data; name="…"` (RFC 7578 §4.2). */
  | "invalid_disposition"
  /** A header line that is not `name: value`, a repeated Content-Disposition, or a
   * Content-Transfer-Encoding other than an identity one (RFC 7578 §4.7). */
  | "malformed_header"
  /** A part's header section (or the padding after its boundary) is longer than allowed. */
  | "headers_too_long"
  /** The body ended before the close delimiter `--boundary--`. */
  | "unexpected_end"
  /** More parts than allowed. */
  | "too_many_parts"
  /** The part body was abandoned: the iterator moved past it or was closed before it was read. */
  | "cancelled";

export class MultipartError extends Error {
  readonly reason: MultipartErrorReason;

  constructor(reason: MultipartErrorReason, message: string) {
    super(message);
    this.name = "MultipartError";
    this.reason = reason;
  }
}
