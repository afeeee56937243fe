// When and how long to wait before trying a request again: network errors, 409 conflict,
// 429 and 503 are retried with jittered exponential backoff, honouring Retry-After.

export interface RetryPolicy {
  /** Retries after the first attempt (default 4, so at most 5 attempts). */
  retries: number;
  /** The first backoff ceiling in ms; it doubles per retry (default 500). */
  baseDelayMs: number;
  /** No wait is longer than this, Retry-After included (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * 409 is the service's "lost the race to concurrent writers, retry" (docs/api.md#errors); 429 and
 * 503 say "later". Every retried write carries the same Idempotency-Key, so none lands twice.
 */
const RETRYABLE_STATUSES = new Set([409, 429, 503]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** 503s that waiting does not cure: a server whose operator must set it up (docs/api.md#errors). */
const SETUP_CODES = new Set(["not_initialized", "not_configured"]);

/** Whether a retryable-status answer is in fact final: a problem whose code says so (a Parquet build that failed for good, too). */
export async function isFinalAnswer(response: Response): Promise<boolean> {
  if (response.status !== 503 || !(response.headers.get("content-type") ?? "").includes("problem+json")) return false;
  try {
    const problem = (await response.clone().json()) as { code?: unknown; state?: unknown };
    if (problem.code === "parquet_pending") return problem.state === "failed";
    return typeof problem.code === "string" && SETUP_CODES.has(problem.code);
  } catch {
    return false;
  }
}

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (0-based): "full jitter" — uniform in
 * [0, base·2^retry] — unless the server named a time with Retry-After, which wins. Capped.
 */
export function retryDelayMs(retry: number, retryAfterMs: number | null, policy: RetryPolicy, random: () => number = Math.random): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
