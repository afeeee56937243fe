// One delivery attempt to a webhook's endpoint (docs/changes.md "Webhooks"): the Standard
// Webhooks request (standardwebhooks.com), success only on a 2xx within 10 s, redirects not
// followed, at most 256 bytes of the answer kept; and the retry schedule after a failure.
import { encodeChangeCursor } from "../../http/cursor.ts";
import type { SeenEvent } from "../../model/change-events.ts";
import type { WebhookSigner } from "../../wire/standard-webhooks.ts";

export const DELIVERY_TIMEOUT_MS = 10_000;
export const KEPT_ANSWER_BYTES = 256;
/** An endpoint failing this long is disabled. */
export const FAILING_LIMIT_MS = 3 * 24 * 3600 * 1000;
/** The first retry's delay, doubling on each further failure up to the Queue's longest delay (12 h). */
export const FIRST_RETRY_SECONDS = 30;
export const LONGEST_RETRY_SECONDS = 12 * 3600;

/** The same on every attempt of one event to one endpoint, so a receiver de-duplicates by it. */
export function webhookMessageId(webhookId: string, seq: number): string {
  return `msg_${webhookId}_${seq}`;
}

/** The body: Standard Webhooks' `type`, `timestamp` and `data`, the event as the feed shows it. */
export function deliveryBody(event: SeenEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.occurred,
    data: { cursor: encodeChangeCursor(event.seq), type: event.type, id: event.datasetId, version: event.version, team: event.team, occurred: event.occurred },
  });
}

/**
 * The delay before the next attempt after `attempts` failed ones: exponential, with "full
 * jitter" over its upper half so endpoints that failed together do not retry together.
 */
export function retryDelaySeconds(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(LONGEST_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(ceiling / 2 + (random() * ceiling) / 2));
}

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  /** The first 256 bytes of a failed answer, as text; null for a 2xx, whose body is not read. */
  body: string | null;
  error: string | null;
}

/** An attempt's outcome, and how long its answer's headers took from the request (null: no answer). */
export interface SentAttempt {
  outcome: AttemptOutcome;
  answerMs: number | null;
}

/** Reads at most `limit` bytes of a body, then cancels the rest. */
async function firstBytes(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const kept = new Uint8Array(limit);
  let length = 0;
  try {
    while (length < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, limit - length);
      kept.set(value.subarray(0, take), length);
      length += take;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(kept.subarray(0, length));
}

/**
 * Signs and sends one attempt; `sign` signs it with every secret that signs now (two during a
 * rotation's overlap). A 2xx is a success as soon as its headers arrive: its body is cancelled,
 * not read, since nothing of it is kept.
 */
export async function sendAttempt(
  url: string,
  sign: WebhookSigner,
  id: string,
  body: string,
  nowSeconds: number,
  fetcher: typeof fetch = fetch,
): Promise<SentAttempt> {
  const signature = await sign(id, nowSeconds, body);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "pubset-webhooks",
    "webhook-id": id,
    "webhook-timestamp": String(nowSeconds),
    "webhook-signature": signature,
  };
  const timeout = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  const sentAt = Date.now();
  try {
    const response = await fetcher(url, { method: "POST", headers, body, redirect: "manual", signal: timeout });
    const answerMs = Date.now() - sentAt;
    if (response.status >= 200 && response.status < 300) {
      response.body?.cancel().catch(() => {});
      return { outcome: { ok: true, status: response.status, body: null, error: null }, answerMs };
    }
    const answer = await Promise.race([
      firstBytes(response, KEPT_ANSWER_BYTES),
      new Promise<string>((resolve) => timeout.addEventListener("abort", () => resolve(""), { once: true })),
    ]);
    const error = response.status >= 300 && response.status < 400 ? "redirect not followed" : timeout.aborted ? "no complete answer within 10 s" : null;
    return { outcome: { ok: false, status: response.status, body: answer, error }, answerMs };
  } catch (error: unknown) {
    return { outcome: { ok: false, status: null, body: null, error: timeout.aborted ? "no answer within 10 s" : `no answer: ${String(error)}`.slice(0, 200) }, answerMs: null };
  }
}
