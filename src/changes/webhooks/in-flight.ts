// How many of a webhook's deliveries are on their way at once (docs/storage-protocol.md "Webhook
// delivery", invariants 4 and 5). A batch's webhooks split the 6 connections a Worker invocation may have
// waiting for their answers' headers, so one slow endpoint never holds up another; a webhook
// alone in its batch may keep more requests in flight while its endpoint answers quickly.

/**
 * Connections a Worker invocation may have waiting for response headers at once; a further fetch
 * waits in the runtime until one of them has its headers (Cloudflare Workers limits,
 * "Simultaneous open connections", relaxed on 2026-04-09 to count only the wait for headers:
 * https://developers.cloudflare.com/changelog/2026-04-09-relaxed-connection-limiting).
 */
export const CONNECTIONS_PER_INVOCATION = 6;

/** An answer's headers within this long count as quick: a fifth of the 10 s an attempt may take. */
export const QUICK_ANSWER_MS = 2_000;

/**
 * The most requests a webhook alone in its batch keeps in flight: 4 × 6. Deployed, the runtime
 * lets 6 wait for headers and holds the rest, so the last of 24 waits behind 3 rounds of 6; while
 * every answer is quick (under 2 s), it is sent within 6 s and answered within 8 s, inside its
 * 10 s limit (whose clock runs from the fetch). Where no runtime holds the 7th (`wrangler dev`),
 * the 24 are sent at once.
 */
export const IN_FLIGHT_ALONE = (Math.floor(10_000 / QUICK_ANSWER_MS) - 1) * CONNECTIONS_PER_INVOCATION;

/** Each of `webhooks` webhooks' share of the connections: as even as it goes, at least one each. */
export function connectionShares(webhooks: number): number[] {
  const base = Math.max(1, Math.floor(CONNECTIONS_PER_INVOCATION / webhooks));
  const extra = webhooks * base < CONNECTIONS_PER_INVOCATION ? CONNECTIONS_PER_INVOCATION - webhooks * base : 0;
  return Array.from({ length: webhooks }, (_, i) => base + (i < extra ? 1 : 0));
}

/** A webhook's bounds in a batch of `webhooks`: it starts at `share`, and may grow to `ceiling`. */
export function inFlightBounds(webhooks: number): Array<{ share: number; ceiling: number }> {
  return connectionShares(webhooks).map((share) => ({ share, ceiling: webhooks === 1 ? IN_FLIGHT_ALONE : share }));
}

/**
 * A webhook's window of requests in flight, like TCP's congestion window: it starts at `start`
 * (its share, or where its last run in this isolate ended), grows by one with each quick answer up
 * to the ceiling, and halves (never below the share) with each slow one or each attempt that got
 * no answer. So an endpoint that turns slow is back to its share within a few answers, and one
 * that stays slow is sent no more than its share at a time.
 */
export interface InFlightWindow {
  readonly size: number;
  /** An attempt's answer came `answerMs` after its request (null: no answer). */
  answered(answerMs: number | null): void;
}

export function inFlightWindow(share: number, ceiling: number, start: number = share): InFlightWindow {
  let size = Math.min(ceiling, Math.max(share, start));
  return {
    get size() {
      return size;
    },
    answered(answerMs) {
      size = answerMs !== null && answerMs < QUICK_ANSWER_MS ? Math.min(ceiling, size + 1) : Math.max(share, Math.floor(size / 2));
    },
  };
}

/**
 * Where each webhook's last run alone in its batch left its window, in this isolate's memory
 * only: the next run starts there instead of climbing from the share again (a new isolate starts
 * at the share). At most REMEMBERED webhooks, the longest unused forgotten first.
 */
const lastWindows = new Map<string, number>();
const REMEMBERED = 1_000;

export function lastWindow(webhookId: string): number | undefined {
  return lastWindows.get(webhookId);
}

export function keepWindow(webhookId: string, size: number): void {
  lastWindows.delete(webhookId);
  lastWindows.set(webhookId, size);
  const oldest = lastWindows.keys().next();
  if (lastWindows.size > REMEMBERED && !oldest.done) lastWindows.delete(oldest.value);
}
