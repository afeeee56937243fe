// docs/changes.md "Webhooks" and docs/storage-protocol.md "Webhook delivery": who receives what,
// secret rotation, failures and their record, disabling and enabling again, and the crash
// points (between a commit and the drain, between a delivery and its record), each delivery
// verified with the standardwebhooks package.
import { createExecutionContext, createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import worker from "../src/index.ts";
import { consumeWebhookBatch } from "../src/changes/webhooks/consumer.ts";
import { LONGEST_RETRY_SECONDS, retryDelaySeconds } from "../src/changes/webhooks/deliver.ts";
import { PURGE_CRON } from "../src/edge/purge-outbox.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, send, write } from "./helpers/http.ts";
import { consume, createWebhook, deliveries, detachedDelivery, received, receivedAtLeast, unique } from "./helpers/webhooks.ts";

const RECEIVER = env.TEST_WEBHOOK_RECEIVER;
const DAY_MS = 24 * 3600 * 1000;

interface Body {
  type: string;
  data: { cursor: string; type: string; id: string; version: string | null; team: string | null };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("who receives what", { timeout: 60_000 }, () => {
  it("another team's webhook naming a dataset gets its public events only: no draft, withdrawals with the id only", async () => {
    const owner = await createKey("hv-owner", "owner");
    const reader = await createKey("hv-reader", "reader");
    const d = await createDataset(owner, "a\nDRAFT\n", { name: "Hooks visibility" });
    const naming = `naming-${crypto.randomUUID()}`;
    const silent = `silent-${crypto.randomUUID()}`;
    const hook = await createWebhook(reader, { url: `${RECEIVER}/ok/${naming}`, datasets: [d.id] });
    await createWebhook(reader, { url: `${RECEIVER}/ok/${silent}` });
    // Each step is delivered before the next: a public event is withheld if its dataset has left
    // public view by the time of sending (the next test), so this one lets each arrive first.
    const draft = (await (await appendRows(owner, d.id, "DRAFT2\n")).json()) as { version: string };
    const publish = (await (await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "public" })])).json()) as { version: string };
    const open = (await (await appendRows(owner, d.id, "open\n")).json()) as { version: string };
    await receivedAtLeast(naming, 2);
    const hide = (await (await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })])).json()) as { version: string };
    const hidden = (await (await appendRows(owner, d.id, "SECRET\n")).json()) as { version: string };
    await receivedAtLeast(naming, 3);
    const again = (await (await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "public" })])).json()) as { version: string };
    await receivedAtLeast(naming, 4);
    expect((await send("DELETE", `/v1/dataset/${d.id}`, { key: owner })).status).toBe(204);

    const got = unique(await receivedAtLeast(naming, 5));
    const verifier = new Webhook(hook.secret);
    const bodies = got.map((r) => verifier.verify(r.body, r.headers) as Body);
    expect(bodies.map((b) => [b.type, b.data.version, b.data.team])).toEqual([
      ["dataset.published", publish.version, "hv-owner"],
      ["dataset.appended", open.version, "hv-owner"],
      ["dataset.withdrawn", null, null],
      ["dataset.published", again.version, "hv-owner"],
      ["dataset.withdrawn", null, null],
    ]);
    expect(bodies.every((b) => b.data.id === d.id)).toBe(true);
    const text = JSON.stringify(got);
    for (const secret of [d.version, draft.version, hide.version, hidden.version]) expect(text).not.toContain(secret);
    // Its team's other webhook names no dataset of another team: nothing.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await received(silent)).toEqual([]);
  });
});

describe("withheld", { timeout: 60_000 }, () => {
  it("a public event whose dataset left public view before it was sent is withheld, never sent", async () => {
    const owner = await createKey("hw-owner", "owner");
    const reader = await createKey("hw-reader", "reader");
    const d = await createDataset(owner, "a\n1\n", { name: "Hooks withheld", visibility: "public" });
    const name = `withheld-${crypto.randomUUID()}`;
    const hook = await createWebhook(reader, { url: `${RECEIVER}/ok/${name}`, datasets: [d.id] });
    // Left to this test's own consumer call, so the order of sending is the test's to choose.
    await env.DB.prepare("UPDATE webhooks SET drained_seq = 1000000000000 WHERE id = ?").bind(hook.id).run();
    const appended = (await (await appendRows(owner, d.id, "2\n")).json()) as { version: string };
    const { seq } = (await env.DB.prepare("SELECT seq FROM change_events WHERE version_id = ?").bind(appended.version).first<{ seq: number }>())!;
    await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })]);
    const now = Date.now();
    await env.DB.prepare("INSERT INTO webhook_deliveries (webhook_id, seq, state, attempts, next_attempt, updated) VALUES (?, ?, 'pending', 0, ?, ?)").bind(hook.id, seq, now, now).run();
    const result = await consume([{ webhookId: hook.id, seq }]);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await deliveries(reader, hook.id)).map((r) => [r.type, r.status, r.attempts])).toEqual([["dataset.appended", "withheld", 0]]);
    expect(await received(name)).toEqual([]);
  });
});

describe("secret rotation", { timeout: 60_000 }, () => {
  it("for 24 h every delivery carries both signatures: a receiver holding either secret verifies", async () => {
    const key = await createKey("hr-team", "rotator");
    const name = `rotate-${crypto.randomUUID()}`;
    const hook = await createWebhook(key, { url: `${RECEIVER}/ok/${name}` });
    const rotated = await send("POST", `/v1/webhooks/${hook.id}/secret`, { key });
    expect(rotated.status).toBe(200);
    const { secret, previous_valid_until } = (await rotated.json()) as { secret: string; previous_valid_until: string };
    expect(secret).not.toBe(hook.secret);
    expect(Date.parse(previous_valid_until) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    await createDataset(key, "a\n1\n", { name: "Hooks rotation" });
    const [delivery] = await receivedAtLeast(name, 1);
    expect(delivery!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(secret).verify(delivery!.body, delivery!.headers)).toMatchObject({ type: "dataset.created" });
    expect(new Webhook(hook.secret).verify(delivery!.body, delivery!.headers)).toMatchObject({ type: "dataset.created" });

    // Past the overlap only the new secret signs.
    await env.DB.prepare("UPDATE webhooks SET previous_until = ? WHERE id = ?").bind(Date.now() - 1, hook.id).run();
    await createDataset(key, "a\n1\n", { name: "Hooks rotation 2" });
    const later = unique(await receivedAtLeast(name, 2))[1]!;
    expect(later.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(() => new Webhook(hook.secret).verify(later.body, later.headers)).toThrow();
    expect(new Webhook(secret).verify(later.body, later.headers)).toMatchObject({ type: "dataset.created" });
  });
});

describe("failures", { timeout: 60_000 }, () => {
  it("a 500 is recorded with the first 256 bytes of its answer and retried later with the same webhook-id", async () => {
    const key = await createKey("hf-team", "failing");
    const name = `fail-${crypto.randomUUID()}`;
    const { webhook, seq } = await detachedDelivery(key, `${RECEIVER}/fail/${name}`);
    const before = Date.now();
    const first = await consume([{ webhookId: webhook.id, seq }]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toHaveLength(1);
    const [row] = await deliveries(key, webhook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_code: 500 });
    expect(row!.response_body).toBe("x".repeat(256));
    // The first retry is due 15-30 s on (30 s, jittered over its upper half).
    const due = Date.parse(row!.next_retry!) - before;
    expect(due).toBeGreaterThanOrEqual(15_000);
    expect(due).toBeLessThanOrEqual(31_000);
    // The answer body is the team's alone.
    const outsider = await createKey("hf-other", "outsider");
    expect((await send("GET", `/v1/webhooks/${webhook.id}/deliveries`, { key: outsider })).status).toBe(404);

    const again = Date.now();
    const second = await consume([{ webhookId: webhook.id, seq }]);
    expect(second.retryMessages).toHaveLength(1);
    expect(Date.parse((await deliveries(key, webhook.id))[0]!.next_retry!) - again).toBeGreaterThanOrEqual(30_000);
    const attempts = await received(name);
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1);
    expect((await deliveries(key, webhook.id))[0]!.attempts).toBe(2);
  });

  it("a 2xx is a success at its headers: its body, however long, is cancelled unread and nothing of it is kept", async () => {
    const key = await createKey("hf-team", "long-answer");
    const name = `long-${crypto.randomUUID()}`;
    const { webhook, seq } = await detachedDelivery(key, `${RECEIVER}/ok/${name}`);
    // The real request, answered with a 200 whose body never ends: reading it would last until
    // the attempt's 10 s limit, and fail it.
    let cancelled = false;
    const fetcher: typeof fetch = async (input, init) => {
      await fetch(input, init);
      const endless = new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(new TextEncoder().encode("y".repeat(1024))),
        cancel: () => {
          cancelled = true;
        },
      });
      return new Response(endless, { status: 200 });
    };
    const started = Date.now();
    const result = await consume([{ webhookId: webhook.id, seq }], { fetcher });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.explicitAcks).toHaveLength(1);
    expect(cancelled).toBe(true);
    const [row] = await deliveries(key, webhook.id);
    expect(row).toMatchObject({ status: "delivered", attempts: 1, response_code: 200, response_body: null, error: null });
    expect(await received(name)).toHaveLength(1);
  });

  it("redirects are not followed, and a URL refused at delivery time is a failed attempt", async () => {
    const key = await createKey("hx-team", "redirected");
    const name = `redirect-${crypto.randomUUID()}`;
    const { webhook, seq } = await detachedDelivery(key, `${RECEIVER}/redirect/${name}`);
    await consume([{ webhookId: webhook.id, seq }]);
    expect((await deliveries(key, webhook.id))[0]).toMatchObject({ status: "pending", response_code: 302, error: "redirect not followed" });
    expect(await received(name)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The redirect's target never got it.
    expect((await fetch(`${RECEIVER}/received/${name}`).then((r) => r.json())) as unknown[]).toHaveLength(1);

    // Checked again before each delivery: a URL that stopped passing (here: the local allowance
    // gone) is not requested at all.
    await consume([{ webhookId: webhook.id, seq }]);
    const strict = { ...env, WEBHOOKS_ALLOW_LOCALHOST: "false" };
    const batch = createMessageBatch("pubset-webhooks", [{ id: "strict", timestamp: new Date(), attempts: 1, body: { webhookId: webhook.id, seq } }]);
    await consumeWebhookBatch(batch, strict);
    expect((await deliveries(key, webhook.id))[0]).toMatchObject({ attempts: 3, response_code: null });
    expect((await deliveries(key, webhook.id))[0]!.error).toMatch(/^url refused/);
    expect(await received(name)).toHaveLength(2);
  });

  it("one slow endpoint does not delay another: attempts run side by side, each cut at 10 s", async () => {
    const key = await createKey("hs-team", "slow");
    const slowName = `slow-${crypto.randomUUID()}`;
    const okName = `ok-${crypto.randomUUID()}`;
    const slow = await detachedDelivery(key, `${RECEIVER}/slow/${slowName}`);
    const ok = await detachedDelivery(key, `${RECEIVER}/ok/${okName}`);
    const started = Date.now();
    const result = await consume([{ webhookId: slow.webhook.id, seq: slow.seq }, { webhookId: ok.webhook.id, seq: ok.seq }]);
    const [fast] = await received(okName);
    expect(fast!.at - started).toBeLessThan(5_000);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(1);
    expect((await deliveries(key, slow.webhook.id))[0]).toMatchObject({ status: "pending", response_code: null, error: "no answer within 10 s" });
    expect((await deliveries(key, ok.webhook.id))[0]).toMatchObject({ status: "delivered", response_code: 204 });
  });

  it("retries back off exponentially with jitter up to 12 h, past 3 days within the queue's retries", () => {
    const low = (attempts: number) => retryDelaySeconds(attempts, () => 0);
    const high = (attempts: number) => retryDelaySeconds(attempts, () => 1);
    expect([1, 2, 3, 4].map(high)).toEqual([30, 60, 120, 240]);
    expect([1, 2, 3, 4].map(low)).toEqual([15, 30, 60, 120]);
    expect(high(30)).toBe(LONGEST_RETRY_SECONDS);
    let spent = 0;
    let attempts = 0;
    while (spent < 3 * 24 * 3600) spent += low(++attempts);
    expect(attempts).toBeLessThan(100); // wrangler.toml max_retries
  });

  it("an endpoint failing for 3 days is disabled with its reason; enabling resumes from the first undelivered event", async () => {
    const key = await createKey("hd-team", "disabled");
    const name = `flaky-${crypto.randomUUID()}`;
    const hook = await createWebhook(key, { url: `${RECEIVER}/flaky/${name}` });
    const d = await createDataset(key, "a\n1\n", { name: "Hooks disable" });
    // The real queue's consumer tries it and fails (503).
    const [first] = await until(() => deliveries(key, hook.id), (rows) => (rows[0]?.attempts ?? 0) >= 1);
    expect(first).toMatchObject({ type: "dataset.created", status: "pending", response_code: 503 });
    const seq = (await env.DB.prepare("SELECT seq FROM webhook_deliveries WHERE webhook_id = ?").bind(hook.id).first<{ seq: number }>())!.seq;

    // It has been failing for 3 days: the next failed attempt disables it.
    await env.DB.prepare("UPDATE webhooks SET failing_since = ? WHERE id = ?").bind(Date.now() - 3 * DAY_MS - 1000, hook.id).run();
    const result = await consume([{ webhookId: hook.id, seq }]);
    expect(result.explicitAcks).toHaveLength(1);
    const shown = (await (await send("GET", `/v1/webhooks/${hook.id}`, { key })).json()) as { enabled: boolean; disabled_reason: string };
    expect(shown.enabled).toBe(false);
    expect(shown.disabled_reason).toMatch(/^failing since .*answered 503/);

    // While disabled: a new event is not queued, and a pending one is not attempted.
    const appended = (await (await appendRows(key, d.id, "2\n")).json()) as { version: string };
    const attemptsBefore = (await received(name)).length;
    await consume([{ webhookId: hook.id, seq }]);
    expect((await received(name)).length).toBe(attemptsBefore);

    await fetch(`${RECEIVER}/heal/${name}`, { method: "POST" });
    const enabled = await send("POST", `/v1/webhooks/${hook.id}/enable`, { key });
    expect(enabled.status).toBe(200);
    expect(((await enabled.json()) as { enabled: boolean; disabled_reason: string | null })).toMatchObject({ enabled: true, disabled_reason: null });
    const all = await receivedAtLeast(name, 2);
    const verifier = new Webhook(hook.secret);
    const delivered = all.filter((r, i) => i >= attemptsBefore);
    const kinds = unique(delivered).map((r) => (verifier.verify(r.body, r.headers) as Body).data);
    expect(kinds.map((k) => [k.type, k.version])).toEqual([
      ["dataset.created", d.version],
      ["dataset.appended", appended.version],
    ]);
    // The first event kept its webhook-id from its failed attempts.
    expect(new Set(all.filter((r) => (JSON.parse(r.body) as Body).type === "dataset.created").map((r) => r.headers["webhook-id"])).size).toBe(1);
    const rows = await until(() => deliveries(key, hook.id), (list) => list.every((r) => r.status === "delivered"));
    expect(rows.map((r) => r.type)).toEqual(["dataset.appended", "dataset.created"]);
  });
});

describe("crashes", { timeout: 60_000 }, () => {
  it("between a commit and its drain: the every-minute drain queues the event", async () => {
    const key = await createKey("hc-team", "crash");
    const name = `cron-${crypto.randomUUID()}`;
    await createWebhook(key, { url: `${RECEIVER}/ok/${name}` });
    // A committed event whose after-commit drain never ran (the worker died after the answer).
    const datasetId = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.deleted', NULL, ?, ?, NULL, ?)")
      .bind(datasetId, key.team, new Date().toISOString())
      .run();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await received(name)).toEqual([]);
    await worker.scheduled({ cron: PURGE_CRON, scheduledTime: Date.now(), noRetry() {} } as ScheduledController, env, createExecutionContext());
    const [delivery] = await receivedAtLeast(name, 1);
    expect((JSON.parse(delivery!.body) as Body).data).toMatchObject({ type: "dataset.deleted", id: datasetId, version: null });
  });

  it("between a delivery and its record: delivered again, with the same webhook-id", async () => {
    const key = await createKey("hk-team", "killed");
    const name = `killed-${crypto.randomUUID()}`;
    const { webhook, seq } = await detachedDelivery(key, `${RECEIVER}/ok/${name}`);
    // The receiver gets it, then the worker dies before recording the answer.
    const dies: typeof fetch = async (input, init) => {
      await fetch(input, init);
      throw new Error("the worker was killed");
    };
    const crashed = await consume([{ webhookId: webhook.id, seq }], { fetcher: dies });
    expect(crashed.explicitAcks).toEqual([]);
    expect(crashed.retryMessages).toHaveLength(1);
    expect((await deliveries(key, webhook.id))[0]).toMatchObject({ status: "pending" });
    const again = await consume([{ webhookId: webhook.id, seq }]);
    expect(again.explicitAcks).toHaveLength(1);
    const got = await received(name);
    expect(got).toHaveLength(2);
    expect(got[0]!.headers["webhook-id"]).toBe(got[1]!.headers["webhook-id"]);
    for (const r of got) expect(new Webhook(webhook.secret).verify(r.body, r.headers)).toMatchObject({ type: "dataset.created" });
    // A duplicate message after the record sends nothing.
    await consume([{ webhookId: webhook.id, seq }]);
    expect(await received(name)).toHaveLength(2);
  });
});
