// How many of a webhook's deliveries are on their way at once (docs/storage-protocol.md "Webhook
// delivery", invariants 4 and 5). A batch's webhooks split the 6 connections a Worker invocation may have
// waiting for their answers' headers, so one slow endpoint never holds up another; a webhook
// alone in its batch may keep more requests in flight, as many as its answer times allow.
import { DELIVERY_TIMEOUT_MS } from "./deliver.ts";

/**
 * Connections a Worker invocation may have waiting for response headers at once; a further fetch
 * is queued by the runtime until one of them has its headers (Cloudflare Workers limits,
 * "Simultaneous open connections": https://developers.cloudflare.com/workers/platform/limits/,
 * counting only the wait for headers since 2026-04-09:
 * https://developers.cloudflare.com/changelog/2026-04-09-relaxed-connection-limiting).
 */
export const CONNECTIONS_PER_INVOCATION = 6;

/**
 * The most requests a webhook alone in its batch ever keeps in flight: 16 rounds of 6. It covers
 * in one round what a batch carries under a steady stream of commits (20–60 events, 20 writers
 * locally), and keeps a run's memory and its subrequests' bookkeeping small.
 */
export const IN_FLIGHT_MOST = 16 * CONNECTIONS_PER_INVOCATION;

/**
 * The most in flight while every answer takes `answerMs`, `DELIVERY_TIMEOUT_MS` (10 s) from its
 * fetch: deployed, the runtime holds all but 6 of them, so the last of W waits for ⌈W/6⌉ − 1
 * rounds of answers before its own round, ⌈W/6⌉ rounds in all, and its clock runs from its fetch.
 * Keeping one round spare, ⌈W/6⌉ × answerMs ≤ 10 s − answerMs, so
 * W ≤ 6 × (⌊10 s / answerMs⌋ − 1): 24 at 2 s, 54 at 1 s, 96 (the most) at 588 ms and below,
 * 6 from 3.34 s to 5 s, none beyond the share past that. `answerMs` is measured from the fetch,
 * so deployed it includes the runtime's hold and the bound errs on the small side; locally (no
 * hold) it is the answer alone.
 */
export function inFlightBound(answerMs: number): number {
  const rounds = Math.floor(DELIVERY_TIMEOUT_MS / Math.max(1, answerMs)) - 1;
  return Math.max(0, Math.min(IN_FLIGHT_MOST, rounds * CONNECTIONS_PER_INVOCATION));
}

/**
 * The same bound from a webhook's answer times so far: the rounds ahead of the last request are
 * many answers over 6 connections, so they count at the smoothed time s; its own answer may be
 * late by up to four deviations d (RFC 6298's margin). With a round spare,
 * (⌈W/6⌉ + 1) × s + 4d ≤ 10 s, so W ≤ 6 × (⌊(10 s − 4d) / s⌋ − 1); with no spread it is
 * `inFlightBound(s)`.
 */
export function estimateBound(times: AnswerTimes): number {
  const rounds = Math.floor((DELIVERY_TIMEOUT_MS - 4 * times.deviationMs) / Math.max(1, times.smoothedMs)) - 1;
  return Math.max(0, Math.min(IN_FLIGHT_MOST, rounds * CONNECTIONS_PER_INVOCATION));
}

/** Each of `webhooks` webhooks' share of the connections: as even as it goes, at least one each. */
export function connectionShares(webhooks: number): number[] {
  const base = Math.max(1, Math.floor(CONNECTIONS_PER_INVOCATION / webhooks));
  const extra = webhooks * base < CONNECTIONS_PER_INVOCATION ? CONNECTIONS_PER_INVOCATION - webhooks * base : 0;
  return Array.from({ length: webhooks }, (_, i) => base + (i < extra ? 1 : 0));
}

/** A webhook's bounds in a batch of `webhooks`: it starts at `share`, and may grow to `ceiling`. */
export function inFlightBounds(webhooks: number): Array<{ share: number; ceiling: number }> {
  return connectionShares(webhooks).map((share) => ({ share, ceiling: webhooks === 1 ? IN_FLIGHT_MOST : share }));
}

/**
 * What a webhook's answers have looked like: RFC 6298 §2's smoothed answer time and its mean
 * deviation, whose sum with four deviations (`overdueMs`) is the time by which an answer is late.
 */
export interface AnswerTimes {
  smoothedMs: number;
  deviationMs: number;
}

/** RFC 6298 §2.2–2.3: the first answer sets the estimate, each further one moves it by 1/8 (its deviation by 1/4). */
export function nextAnswerTimes(known: AnswerTimes | null, answerMs: number): AnswerTimes {
  if (!known) return { smoothedMs: answerMs, deviationMs: answerMs / 2 };
  const deviationMs = 0.75 * known.deviationMs + 0.25 * Math.abs(known.smoothedMs - answerMs);
  return { smoothedMs: 0.875 * known.smoothedMs + 0.125 * answerMs, deviationMs };
}

/** RFC 6298 §2.3's retransmission timeout, without its 1 s floor: when an answer counts as late. */
export function overdueMs(times: AnswerTimes): number {
  return times.smoothedMs + 4 * times.deviationMs;
}

/**
 * A webhook's window of requests in flight, like TCP's congestion window: it starts at its share
 * (or where its last run in this isolate ended) and gains one with each answer while the bound of
 * its answer times (`estimateBound`) is above it, never past the ceiling, and comes down to that
 * bound when it falls. An answer later than the late-answer time (`overdueMs`) may be the endpoint
 * turning slow, so it brings the window down to what that answer alone allows (`inFlightBound`);
 * an attempt with no answer halves it; never below the share. So the window grows past 24 only
 * while answers stay well under 2 s, and an endpoint that turns slow is back to its share at once.
 */
export interface InFlightWindow {
  readonly size: number;
  /** The answer-time estimate so far (null before the first answer). */
  readonly times: AnswerTimes | null;
  /** An attempt's answer came `answerMs` after its fetch (null: no answer). */
  answered(answerMs: number | null): void;
}

/** Where a window stood when its run ended. */
export interface KeptWindow {
  size: number;
  times: AnswerTimes | null;
}

export function inFlightWindow(share: number, ceiling: number, start?: KeptWindow): InFlightWindow {
  let size = Math.min(ceiling, Math.max(share, start?.size ?? share));
  let times = start?.times ?? null;
  return {
    get size() {
      return size;
    },
    get times() {
      return times;
    },
    answered(answerMs) {
      if (answerMs === null) {
        // RFC 6298 §5.5: with no answer, the late-answer time doubles (up to the attempt's limit).
        if (times) times = { smoothedMs: Math.min(DELIVERY_TIMEOUT_MS, times.smoothedMs * 2), deviationMs: times.deviationMs };
        size = Math.max(share, Math.floor(size / 2));
        return;
      }
      const late = times !== null && answerMs > overdueMs(times);
      times = nextAnswerTimes(times, answerMs);
      const bound = Math.min(ceiling, estimateBound(times), late ? inFlightBound(answerMs) : IN_FLIGHT_MOST);
      size = bound > size && !late ? size + 1 : Math.max(share, Math.min(size, bound));
    },
  };
}

/**
 * Where each webhook's last run alone in its batch left its window and answer times, in this
 * isolate's memory only: the next run starts there instead of climbing from the share again (a
 * new isolate starts at the share). At most REMEMBERED webhooks, the longest unused forgotten first.
 */
const lastWindows = new Map<string, KeptWindow>();
const REMEMBERED = 1_000;

export function lastWindow(webhookId: string): KeptWindow | undefined {
  return lastWindows.get(webhookId);
}

export function keepWindow(webhookId: string, window: InFlightWindow): void {
  lastWindows.delete(webhookId);
  lastWindows.set(webhookId, { size: window.size, times: window.times });
  const oldest = lastWindows.keys().next();
  if (lastWindows.size > REMEMBERED && !oldest.done) lastWindows.delete(oldest.value);
}
