// What a client call throws: PubsetError for an answer the API gave (RFC 9457 problem details,
// docs/api.md#errors), PubsetNetworkError when no answer came after every retry, UploadSourceError when
// the data to upload could not be read consistently.
import type { Problem } from "./types.ts";

/** The API answered with an error status. Switch on `code`, not on `detail` wording. */
export class PubsetError extends Error {
  override readonly name = "PubsetError";
  readonly status: number;
  /** The problem's stable snake_case code, or `http_<status>` when the body was not a problem. */
  readonly code: string;
  readonly detail: string;
  /** The whole problem body, extension members (`row`, `expected`, …) included. */
  readonly problem: Problem;
  readonly headers: Headers;

  constructor(problem: Problem, headers: Headers = new Headers()) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.problem = problem;
    this.headers = headers;
  }
}

/** No HTTP answer (connection refused, reset, DNS, timeout) even after the retries. */
export class PubsetNetworkError extends Error {
  override readonly name = "PubsetNetworkError";
  readonly attempts: number;
  /** The URL of the request that got no answer. */
  readonly url: string | undefined;

  constructor(message: string, attempts: number, cause: unknown, url?: string) {
    super(message, { cause });
    this.attempts = attempts;
    this.url = url;
  }
}

/** The upload's source could not be read, or changed between the digest pass and the send. */
export class UploadSourceError extends Error {
  override readonly name = "UploadSourceError";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads an error response into a PubsetError, whatever its body (problem+json or not). */
export async function errorFromResponse(response: Response): Promise<PubsetError> {
  const text = await response.text().catch(() => "");
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const fallbackDetail = text.trim().slice(0, 500) || response.statusText || `HTTP ${response.status}`;
  const fields = isRecord(body) ? body : {};
  const problem: Problem = {
    ...fields,
    type: typeof fields.type === "string" ? fields.type : "about:blank",
    title: typeof fields.title === "string" ? fields.title : response.statusText,
    status: response.status,
    detail: typeof fields.detail === "string" ? fields.detail : fallbackDetail,
    code: typeof fields.code === "string" ? fields.code : `http_${response.status}`,
  };
  return new PubsetError(problem, response.headers);
}
