// The one error model: every failure leaves the API as RFC 9457 problem details with a stable
// `code` (docs/api.md#errors). Routes and middleware throw ApiError; `problemResponse` shapes it; the app's
// error handler turns anything else into a bare 500 without internals.

export const PROBLEMS = {
  invalid_request: { status: 400, title: "Invalid request" },
  invalid_query: { status: 400, title: "Invalid query" },
  signature_required: { status: 401, title: "Signature required" },
  signature_invalid: { status: 401, title: "Signature invalid" },
  signature_expired: { status: 401, title: "Signature expired" },
  unknown_key: { status: 401, title: "Unknown key" },
  digest_mismatch: { status: 401, title: "Content digest mismatch" },
  nonce_reused: { status: 401, title: "Nonce reused" },
  forbidden: { status: 403, title: "Forbidden" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  mismatching_upload_offset: { status: 409, title: "Mismatching upload offset" },
  completed_upload: { status: 400, title: "Upload already completed" },
  inconsistent_upload_length: { status: 400, title: "Inconsistent upload length" },
  precondition_failed: { status: 412, title: "Precondition failed" },
  payload_too_large: { status: 413, title: "Payload too large" },
  query_too_large: { status: 413, title: "Query too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  range_not_satisfiable: { status: 416, title: "Range not satisfiable" },
  invalid_csv: { status: 422, title: "Invalid CSV" },
  empty_csv: { status: 422, title: "Empty CSV" },
  column_count_mismatch: { status: 422, title: "Column count mismatch" },
  header_row_in_append: { status: 422, title: "Header row in append" },
  empty_append: { status: 422, title: "Empty append" },
  invalid_schema: { status: 422, title: "Invalid schema" },
  schema_mismatch: { status: 422, title: "Schema mismatch" },
  idempotency_key_reused: { status: 422, title: "Idempotency key reused" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal_error: { status: 500, title: "Internal error" },
  service_unavailable: { status: 503, title: "Service unavailable" },
  not_initialized: { status: 503, title: "Database not initialized" },
  not_configured: { status: 503, title: "Server not configured" },
  parquet_pending: { status: 503, title: "Parquet not built yet" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** `signature_required` on a write: how a newcomer gets a signature, not only what is missing. */
export const SIGNATURE_REQUIRED_DETAIL =
  "Writes must carry an RFC 9421 HTTP message signature. With the CLI, run `pubset login` once with your key (locally, the demo key `npm start` printed) and use `pubset create`/`append`; with curl-like requests, `npm run sign -- METHOD URL …` signs them. docs/api.md, \"Signing requests\", shows the headers.";

/** Extension members allowed beside the standard ones (RFC 9457 §3.2). */
export type ProblemExtensions = Record<string, string | number | boolean | null>;

export class ApiError extends Error {
  readonly code: ProblemCode;
  readonly detail: string;
  readonly extensions: ProblemExtensions;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, detail: string, extensions: ProblemExtensions = {}, headers: Record<string, string> = {}) {
    super(detail);
    this.name = "ApiError";
    this.code = code;
    this.detail = detail;
    this.extensions = extensions;
    this.headers = headers;
  }

  get status(): number {
    return PROBLEMS[this.code].status;
  }
}

export function problemTypeUri(code: ProblemCode): string {
  return `/problems/${code}`;
}

/** RFC 9457 §3 body; the standard members win over extensions of the same name. */
export function problemBody(error: ApiError): Record<string, unknown> {
  const { status, title } = PROBLEMS[error.code];
  return { ...error.extensions, type: problemTypeUri(error.code), title, status, detail: error.detail, code: error.code };
}

export function problemResponse(error: ApiError): Response {
  const headers = new Headers(error.headers);
  headers.set("Content-Type", "application/problem+json");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(problemBody(error)), { status: error.status, headers });
}
