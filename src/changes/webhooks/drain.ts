// The drain (docs/storage-protocol.md "Webhook delivery"): moves change events from the outbox
// to the WEBHOOKS queue, one message per webhook and run carrying the events it may see (at most
// EVENTS_PER_MESSAGE, in commit order). It runs after each
// commit's answer and every minute; every run claims in D1 before it sends, so two runs never
// queue the same delivery, and a run that dies after its claim leaves rows the sweep re-sends.
//
//   webhooks ← the enabled ones whose position is behind the newest event, and in the same
//   D1 batch, events ← up to 500 outbox rows after the lowest position among them
//   per webhook: its view of each event after its position (eventForWebhook)
//     batch: INSERT delivery rows (ON CONFLICT DO NOTHING RETURNING) + position ← last event read
//     queue.sendBatch(the rows this run inserted, EVENTS_PER_MESSAGE to a message, oldest first)
//   sweep (every minute): pending rows long past due → due now, sent again, grouped the same way
import { eventForWebhook } from "../../model/change-events.ts";
import { claimDeliveries, drainRead, overdueDeliveries } from "./store.ts";

/** One webhook's events, oldest first: the consumer starts them in this order, several at once. */
export interface DeliveryMessage {
  webhookId: string;
  seqs: number[];
}

/**
 * The most events one message carries. The consumer sends a webhook's events through its share
 * of the invocation's connections (1 to 6), each attempt cut at 10 s, so an endpoint that answers
 * slowly but in time keeps a full message at most 50 × 10 s = 500 s; a run stops starting events
 * after 12 minutes, inside a queue consumer invocation's 15 minutes of wall time. The CPU spent
 * per event (a signature, a share of a D1 write) is well under a millisecond. A larger backlog
 * (after an outage, on enable) becomes several messages.
 */
export const EVENTS_PER_MESSAGE = 50;

/** `seqs` (any order) of each webhook as messages of at most EVENTS_PER_MESSAGE, oldest first. */
export function deliveryMessages(rows: ReadonlyArray<{ webhookId: string; seq: number }>): DeliveryMessage[] {
  const byWebhook = new Map<string, number[]>();
  for (const { webhookId, seq } of rows) byWebhook.set(webhookId, [...(byWebhook.get(webhookId) ?? []), seq]);
  const messages: DeliveryMessage[] = [];
  for (const [webhookId, seqs] of byWebhook) {
    seqs.sort((a, b) => a - b);
    for (let i = 0; i < seqs.length; i += EVENTS_PER_MESSAGE) messages.push({ webhookId, seqs: seqs.slice(i, i + EVENTS_PER_MESSAGE) });
  }
  return messages;
}

export interface DrainBindings {
  DB: D1Database;
  WEBHOOKS?: Queue;
}

const EVENTS_PER_READ = 500;
const MAX_ROUNDS = 10;
/** A pending delivery this long past due has lost its message (or the consumer is far behind). */
export const OVERDUE_MS = 10 * 60 * 1000;

export async function send(queue: Queue | undefined, messages: DeliveryMessage[]): Promise<void> {
  if (!queue) return;
  for (let i = 0; i < messages.length; i += 100) {
    await queue.sendBatch(messages.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })));
  }
}

/** One drain run; returns how many deliveries it queued. */
export async function drainOutbox(env: DrainBindings, now: number = Date.now()): Promise<number> {
  let queued = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { webhooks, events } = await drainRead(env.DB, EVENTS_PER_READ);
    if (webhooks.length === 0) return queued;
    const last = events[events.length - 1];
    if (!last) return queued;
    for (const webhook of webhooks) {
      const seqs = events
        .filter((event) => event.seq > webhook.drainedSeq)
        .filter((event) => eventForWebhook(event, { teamId: webhook.teamId, events: webhook.events, datasets: webhook.datasets }) !== null)
        .map((event) => event.seq);
      const inserted = await claimDeliveries(env.DB, webhook.id, seqs, last.seq, now);
      await send(env.WEBHOOKS, deliveryMessages(inserted.map((seq) => ({ webhookId: webhook.id, seq }))));
      queued += inserted.length;
    }
    if (events.length < EVENTS_PER_READ) return queued;
  }
  return queued;
}

/** Sends again the pending deliveries whose message was lost; returns how many. */
export async function sweepOverdue(env: DrainBindings, now: number = Date.now()): Promise<number> {
  const overdue = await overdueDeliveries(env.DB, now - OVERDUE_MS, now, 500);
  await send(env.WEBHOOKS, deliveryMessages(overdue));
  return overdue.length;
}

/**
 * Under a steady stream of commits, the drain's rounds start at least this far apart: each then
 * reads and claims more events at once, and hands a webhook more of them in one message, so a
 * consumer batch (at most 6 messages) carries more. The first round after a quiet spell starts at
 * once, so a lone commit's event is not held.
 */
export const DRAIN_ROUND_MS = 500;

/** This isolate's drain after commits, while one runs, and whether a commit has asked for another round. */
let draining: Promise<void> | null = null;
let again = false;

/**
 * The drain after a commit's answer: one at a time in an isolate. A commit answered while a drain
 * runs asks for one more round instead of a drain of its own, so the burst of answers of an
 * append group costs two drains, not one each, all reading and claiming the same events. Each
 * round reads every event committed before it began; rounds asked for back to back start
 * DRAIN_ROUND_MS apart. A failure only delays delivery until the next run (the every-minute
 * drain, or the next commit's).
 */
export function drainAfterCommit(env: DrainBindings, defer: (work: Promise<void>) => void): void {
  if (draining) {
    again = true;
    return;
  }
  const run = async () => {
    do {
      again = false;
      const began = Date.now();
      await drainOutbox(env).catch((error: unknown) => console.error(JSON.stringify({ event: "webhook_drain_failed", error: String(error) })));
      const rest = DRAIN_ROUND_MS - (Date.now() - began);
      if (again && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    } while (again);
  };
  draining = run().finally(() => {
    draining = null;
  });
  defer(draining);
}
