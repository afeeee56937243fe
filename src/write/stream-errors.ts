// Errors raised inside the upload pipeline come from pure modules that know nothing of HTTP;
// this is the one place that maps them to problem codes (docs/api.md#errors).
import { DigestMismatchError } from "../wire/content-digest.ts";
import { CsvError, type CsvLimitName } from "../csv/index.ts";
import { ApiError, type ProblemExtensions } from "../model/errors.ts";
import { MultipartError } from "./multipart/index.ts";

/** The operator-facing names of the CSV limits (wrangler.toml vars). */
const LIMIT_NAMES: Record<CsvLimitName, string> = {
  maxColumns: "MAX_COLUMNS",
  maxFieldBytes: "MAX_FIELD_BYTES",
  maxHeaderBytes: "MAX_HEADER_BYTES",
  blankLineRun: "blank_line_run",
};

export function problemFromStreamError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof DigestMismatchError) {
    return new ApiError("digest_mismatch", "The body does not match its Content-Digest.");
  }
  if (error instanceof MultipartError) return new ApiError("invalid_request", `Malformed multipart body: ${error.message}`);
  if (error instanceof CsvError) {
    const code = error.code;
    if (code === "csv_limit_exceeded") {
      const extensions: ProblemExtensions = { limit: LIMIT_NAMES[error.limit ?? "maxFieldBytes"] };
      if (error.max !== undefined) extensions.max = error.max;
      if (error.row !== undefined) extensions.row = error.row;
      return new ApiError("payload_too_large", error.message, extensions);
    }
    const extensions: ProblemExtensions = {};
    if (error.row !== undefined) extensions.row = error.row;
    if (error.expected !== undefined) extensions.expected = error.expected;
    if (error.found !== undefined) extensions.found = error.found;
    if (error.separator !== undefined) extensions.separator = error.separator;
    return new ApiError(code, error.message, extensions);
  }
  return error;
}
