// docs/storage-protocol.md "Webhook delivery": a queue message holds one webhook's events in
// commit order (at most EVENTS_PER_MESSAGE). The consumer sends them one at a time, stops at the
// first failure and leaves the rest, failed event first, to the message's retry; messages of a
// batch run side by side, so a slow endpoint's message never holds up another's.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryMessages, drainOutbox, EVENTS_PER_MESSAGE, type DeliveryMessage } from "../src/changes/webhooks/drain.ts";
import { appendRows, collectionPart, createDataset, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { consume, createWebhook, deliveries, received, receivedAtLeast } from "./helpers/webhooks.ts";

const RECEIVER = env.TEST_WEBHOOK_RECEIVER;

/** A webhook to `url` the drain leaves alone, with `count` pending deliveries of its team's events. */
async function pendingEvents(key: TestKey, url: string, count: number): Promise<{ webhook: { id: string; secret: string }; seqs: number[] }> {
  const webhook = await createWebhook(key, { url });
  await env.DB.prepare("UPDATE webhooks SET drained_seq = 1000000000000 WHERE id = ?").bind(webhook.id).run();
  const now = Date.now();
  const insert = env.DB.prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.deleted', NULL, ?, ?, NULL, ?) RETURNING seq");
  const results = await env.DB.batch(Array.from({ length: count }, () => insert.bind(crypto.randomUUID(), key.team, new Date(now).toISOString())));
  const seqs = results.map((r) => (r.results[0] as { seq: number }).seq);
  const row = env.DB.prepare("INSERT INTO webhook_deliveries (webhook_id, seq, state, attempts, next_attempt, updated) VALUES (?, ?, 'pending', 0, ?, ?)");
  await env.DB.batch(seqs.map((seq) => row.bind(webhook.id, seq, now, now)));
  return { webhook, seqs };
}

const ids = (webhookId: string, seqs: number[]) => seqs.map((seq) => `msg_${webhookId}_${seq}`);

describe("a message of several events", () => {
  it("reaches its endpoint one at a time, in commit order", async () => {
    const key = await createKey("hm-team", "order");
    const name = `order-${crypto.randomUUID()}`;
    const { webhook, seqs } = await pendingEvents(key, `${RECEIVER}/ok/${name}`, 6);
    const result = await consume([{ webhookId: webhook.id, seqs: [...seqs].reverse() }]);
    expect(result.explicitAcks).toHaveLength(1);
    const got = await received(name);
    expect(got.map((r) => r.headers["webhook-id"])).toEqual(ids(webhook.id, seqs));
    // One at a time: each request arrived after the one before had been answered and recorded.
    for (let i = 1; i < got.length; i++) expect(got[i]!.at).toBeGreaterThanOrEqual(got[i - 1]!.at);
    expect((await deliveries(key, webhook.id)).map((d) => d.status)).toEqual(seqs.map(() => "delivered"));
  });

  it("stops at the first failure; the retry sends the failed event and the rest, never the delivered ones", async () => {
    const key = await createKey("hm-team", "partial");
    const name = `partial-${crypto.randomUUID()}`;
    const { webhook, seqs } = await pendingEvents(key, `${RECEIVER}/breaking/${name}`, 5);
    const message: DeliveryMessage = { webhookId: webhook.id, seqs };
    const first = await consume([message]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toHaveLength(1);
    expect((await received(name)).map((r) => r.headers["webhook-id"])).toEqual(ids(webhook.id, seqs.slice(0, 3)));
    const rows = (await deliveries(key, webhook.id)).reverse();
    expect(rows.map((d) => [d.status, d.attempts])).toEqual([["delivered", 1], ["delivered", 1], ["pending", 1], ["pending", 0], ["pending", 0]]);
    // The events after the failed one wait for the same retry, so the sweep does not send them ahead of it.
    expect(rows[3]!.next_retry).toBe(rows[2]!.next_retry);
    expect(rows[4]!.next_retry).toBe(rows[2]!.next_retry);

    await fetch(`${RECEIVER}/heal/${name}`, { method: "POST" });
    const retried = await consume([message]);
    expect(retried.explicitAcks).toHaveLength(1);
    const got = await received(name);
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([...ids(webhook.id, seqs.slice(0, 3)), ...ids(webhook.id, seqs.slice(2))]);
    expect((await deliveries(key, webhook.id)).map((d) => d.status)).toEqual(seqs.map(() => "delivered"));
  });

  it("of one webhook in one batch run in turn: the endpoint sees one request at a time, each message in commit order", async () => {
    const key = await createKey("hm-team", "turns");
    const name = `turns-${crypto.randomUUID()}`;
    const { webhook, seqs } = await pendingEvents(key, `${RECEIVER}/ok/${name}`, 8);
    const result = await consume([
      { webhookId: webhook.id, seqs: seqs.slice(0, 4) },
      { webhookId: webhook.id, seqs: seqs.slice(4) },
    ]);
    expect(result.explicitAcks).toHaveLength(2);
    // Side by side, the two messages' requests would interleave; in turn, the first message's
    // four come before the second's.
    expect((await received(name)).map((r) => r.headers["webhook-id"])).toEqual(ids(webhook.id, seqs));
  });

  it("stops sending a dataset's public events once a fresh reading finds it private", { timeout: 60_000 }, async () => {
    const owner = await createKey("hm-owner", "owner");
    const reader = await createKey("hm-reader", "reader");
    const d = await createDataset(owner, "a\n1\n", { name: "Hooks mid-message", visibility: "public" });
    const name = `midway-${crypto.randomUUID()}`;
    const hook = await createWebhook(reader, { url: `${RECEIVER}/ok/${name}`, datasets: [d.id] });
    await env.DB.prepare("UPDATE webhooks SET drained_seq = 1000000000000 WHERE id = ?").bind(hook.id).run();
    const versions: string[] = [];
    for (const row of ["2\n", "3\n", "4\n"]) versions.push(((await (await appendRows(owner, d.id, row)).json()) as { version: string }).version);
    const seqs: number[] = [];
    for (const version of versions) seqs.push((await env.DB.prepare("SELECT seq FROM change_events WHERE version_id = ?").bind(version).first<{ seq: number }>())!.seq);
    const now = Date.now();
    const row = env.DB.prepare("INSERT INTO webhook_deliveries (webhook_id, seq, state, attempts, next_attempt, updated) VALUES (?, ?, 'pending', 0, ?, ?)");
    await env.DB.batch(seqs.map((seq) => row.bind(hook.id, seq, now, now)));
    // The first event is sent; while it is, the dataset goes private and 11 s pass on the
    // consumer's clock, so the visibility read with the message is too old for the next one.
    let skew = 0;
    const fetcher: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (skew === 0) {
        await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })]);
        skew = 11_000;
      }
      return answer;
    };
    const result = await consume([{ webhookId: hook.id, seqs }], { fetcher, now: () => Date.now() + skew });
    expect(result.explicitAcks).toHaveLength(1);
    expect((await received(name)).map((r) => r.headers["webhook-id"])).toEqual(ids(hook.id, seqs.slice(0, 1)));
    expect((await deliveries(reader, hook.id)).reverse().map((r) => r.status)).toEqual(["delivered", "withheld", "withheld"]);
  });

  it("of a slow endpoint does not delay another endpoint's message in the same batch", { timeout: 60_000 }, async () => {
    const key = await createKey("hm-team", "slow");
    const slowName = `slow-${crypto.randomUUID()}`;
    const okName = `ok-${crypto.randomUUID()}`;
    const slow = await pendingEvents(key, `${RECEIVER}/slow/${slowName}`, 3);
    const ok = await pendingEvents(key, `${RECEIVER}/ok/${okName}`, 10);
    const started = Date.now();
    const result = await consume([{ webhookId: slow.webhook.id, seqs: slow.seqs }, { webhookId: ok.webhook.id, seqs: ok.seqs }]);
    const got = await received(okName);
    expect(got.map((r) => r.headers["webhook-id"])).toEqual(ids(ok.webhook.id, ok.seqs));
    expect(got[got.length - 1]!.at - started).toBeLessThan(5_000);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(1);
    // The slow one's first event timed out; the message stopped there.
    expect(await received(slowName)).toHaveLength(1);
  });
});

describe("a message cut short", () => {
  it("by a worker that dies while recording: sent again from the first event not recorded, with the same webhook-ids", async () => {
    const key = await createKey("hm-team", "killed");
    const name = `killed-${crypto.randomUUID()}`;
    const { webhook, seqs } = await pendingEvents(key, `${RECEIVER}/ok/${name}`, 3);
    // The real database, except that the worker dies at its third batch: the second event's record.
    let batches = 0;
    const dying = {
      prepare: (sql: string) => env.DB.prepare(sql),
      batch: (statements: D1PreparedStatement[]) => {
        if (++batches === 3) return Promise.reject(new Error("the worker was killed"));
        return env.DB.batch(statements);
      },
    } as unknown as D1Database;
    const message: DeliveryMessage = { webhookId: webhook.id, seqs };
    const crashed = await consume([message], {}, { ...env, DB: dying });
    expect(crashed.explicitAcks).toEqual([]);
    expect(crashed.retryMessages).toHaveLength(1);
    expect((await deliveries(key, webhook.id)).reverse().map((d) => d.status)).toEqual(["delivered", "pending", "pending"]);

    const again = await consume([message]);
    expect(again.explicitAcks).toHaveLength(1);
    expect((await received(name)).map((r) => r.headers["webhook-id"])).toEqual([...ids(webhook.id, seqs), ...ids(webhook.id, seqs.slice(1))]);
    expect((await deliveries(key, webhook.id)).map((d) => d.status)).toEqual(seqs.map(() => "delivered"));
  });
});

describe("a message's size", () => {
  it(`is at most ${EVENTS_PER_MESSAGE} events, each webhook's in commit order`, () => {
    const rows = [...Array.from({ length: 120 }, (_, i) => ({ webhookId: "a", seq: 500 - i })), { webhookId: "b", seq: 7 }, { webhookId: "b", seq: 3 }];
    const messages = deliveryMessages(rows);
    expect(messages.map((m) => [m.webhookId, m.seqs.length])).toEqual([["a", 50], ["a", 50], ["a", 20], ["b", 2]]);
    expect(messages.flatMap((m) => (m.webhookId === "a" ? m.seqs : []))).toEqual(Array.from({ length: 120 }, (_, i) => 381 + i));
    expect(messages[3]!.seqs).toEqual([3, 7]);
  });

  it("a drain of a long backlog queues capped messages, and every event is delivered once", { timeout: 60_000 }, async () => {
    const key = await createKey("hm-team", "backlog");
    const name = `backlog-${crypto.randomUUID()}`;
    const webhook = await createWebhook(key, { url: `${RECEIVER}/ok/${name}` });
    const insert = env.DB.prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.deleted', NULL, ?, ?, NULL, ?)");
    await env.DB.batch(Array.from({ length: 120 }, () => insert.bind(crypto.randomUUID(), key.team, new Date().toISOString())));
    // The real queue, with each batch of messages noted on its way.
    const sent: DeliveryMessage[] = [];
    const queue = {
      send: (body: DeliveryMessage, options?: QueueSendOptions) => env.WEBHOOKS.send(body, options),
      sendBatch: (batch: Iterable<MessageSendRequest<DeliveryMessage>>, options?: QueueSendBatchOptions) => {
        const list = [...batch];
        sent.push(...list.map((m) => m.body));
        return env.WEBHOOKS.sendBatch(list, options);
      },
    } as Queue;
    expect(await drainOutbox({ DB: env.DB, WEBHOOKS: queue })).toBeGreaterThanOrEqual(120);
    const mine = sent.filter((m) => m.webhookId === webhook.id);
    expect(mine.map((m) => m.seqs.length)).toEqual([50, 50, 20]);
    const got = await receivedAtLeast(name, 120, 40_000);
    expect(got).toHaveLength(120);
  });
});
