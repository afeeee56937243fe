// The webhook tests' shared steps: create a webhook, read its deliveries, and a delivery that only
// the test's own consumer calls attempt (test/changes.webhooks.test.ts, test/changes.webhook-delivery.test.ts, test/changes.webhook-dns.test.ts).
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { consumeWebhookBatch, type ConsumerBindings } from "../../src/changes/webhooks/consumer.ts";
import type { DeliveryMessage } from "../../src/changes/webhooks/drain.ts";
import { send } from "./http.ts";
import type { TestKey } from "./keys.ts";

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What the receiver at `name` (test/node/helpers/webhook-receiver.ts) got, oldest first. */
export async function received(name: string): Promise<Received[]> {
  return (await (await fetch(`${env.TEST_WEBHOOK_RECEIVER}/received/${name}`)).json()) as Received[];
}

/** Waits until `name` has received `count` deliveries with distinct ids (duplicates allowed: at least once). */
export async function receivedAtLeast(name: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await received(name);
    if (new Set(list.map((r) => r.headers["webhook-id"])).size >= count) return list;
    if (Date.now() > deadline) throw new Error(`${name}: ${list.length} deliveries after ${timeoutMs} ms, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first delivery of each webhook-id, in the order received. */
export function unique(list: Received[]): Received[] {
  const seen = new Set<string>();
  return list.filter((r) => {
    const id = r.headers["webhook-id"] ?? "";
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export async function createWebhook(key: TestKey, body: Record<string, unknown>) {
  const response = await send("POST", "/v1/webhooks", { key, body: new TextEncoder().encode(JSON.stringify(body)), headers: { "Content-Type": "application/json" } });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; url: string; secret: string; events: string[]; datasets: string[]; created: string; enabled: boolean };
}

export async function deliveries(key: TestKey, id: string) {
  const response = await send("GET", `/v1/webhooks/${id}/deliveries`, { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Array<{ cursor: string; type: string; status: string; attempts: number; response_code: number | null; response_body: string | null; error: string | null; next_retry: string | null }> }).results;
}

/**
 * A webhook to `url` that the drain leaves alone (its position is past every event) with one
 * pending delivery of an event of its team, so only the test's own consumer calls attempt it.
 */
export async function detachedDelivery(key: TestKey, url: string): Promise<{ webhook: { id: string; secret: string }; seq: number }> {
  const webhook = await createWebhook(key, { url });
  await env.DB.prepare("UPDATE webhooks SET drained_seq = 1000000000000 WHERE id = ?").bind(webhook.id).run();
  const event = await env.DB.prepare(
    "INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.created', NULL, ?, ?, ?, ?) RETURNING seq",
  )
    .bind(crypto.randomUUID(), key.team, crypto.randomUUID(), new Date().toISOString())
    .first<{ seq: number }>();
  const now = Date.now();
  await env.DB.prepare("INSERT INTO webhook_deliveries (webhook_id, seq, state, attempts, next_attempt, updated) VALUES (?, ?, 'pending', 0, ?, ?)")
    .bind(webhook.id, event!.seq, now, now)
    .run();
  return { webhook, seq: event!.seq };
}

/**
 * One consumer call on these messages, as the queue would make it; what it acknowledged and
 * retried. A message of one `seq` is sent as the drain sends it, `{ webhookId, seqs: [seq] }`.
 */
export async function consume(
  messages: Array<{ webhookId: string; seq: number } | DeliveryMessage>,
  options: Parameters<typeof consumeWebhookBatch>[2] = {},
  bindings: ConsumerBindings = env,
) {
  const bodies = messages.map((m): DeliveryMessage => ("seqs" in m ? m : { webhookId: m.webhookId, seqs: [m.seq] }));
  const batch = createMessageBatch("pubset-webhooks", bodies.map((body, i) => ({ id: `m${i}-${body.seqs.join("-")}`, timestamp: new Date(), attempts: 1, body })));
  const ctx = createExecutionContext();
  await consumeWebhookBatch(batch, bindings, options);
  return getQueueResult(batch, ctx);
}
