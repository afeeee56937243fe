// The client's side of docs/changes.md: `changes()` iterates the feed (and follows it with
// `wait`), and `verifyWebhook` accepts exactly what the standardwebhooks package signs.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { PubsetClient, verifyWebhook, WebhookVerificationError, type ChangeEvent } from "../src/client/index.ts";
import { ORIGIN } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

const workerFetch = (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init));

describe("client.changes", () => {
  it("iterates the team's events after a cursor and stops once caught up; with wait, follows new ones", async () => {
    const key = await createKey("client-changes", "follower");
    const client = new PubsetClient({ url: ORIGIN, key, fetch: workerFetch as typeof fetch });
    const start: ChangeEvent[] = [];
    for await (const event of client.changes({ since: "now" })) start.push(event);
    expect(start).toEqual([]);
    const d = await client.create({ name: "Client changes" }, "a\n1\n");
    const appended = await client.append(d.id, "2\n");
    const seen: ChangeEvent[] = [];
    for await (const event of client.changes({ limit: 1 })) if (event.id === d.id) seen.push(event);
    expect(seen.map((e) => [e.type, e.version])).toEqual([
      ["dataset.created", d.version],
      ["dataset.appended", appended.version],
    ]);

    // Following: the iterator waits for the next event and yields it as it commits.
    const controller = new AbortController();
    const followed = (async () => {
      for await (const event of client.changes({ since: seen[1]!.cursor, wait: 10, signal: controller.signal })) {
        controller.abort();
        return event;
      }
      return null;
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await client.append(d.id, "3\n");
    expect(await followed).toMatchObject({ type: "dataset.appended", version: third.version });
  });
});

describe("verifyWebhook", () => {
  const secret = "whsec_" + btoa("0123456789abcdef0123456789abcdef");
  const body = JSON.stringify({ type: "dataset.created", timestamp: "2026-11-26T00:00:00.000Z", data: { cursor: "c", type: "dataset.created", id: "d", version: "v", team: "t", occurred: "2026-11-26T00:00:00.000Z" } });

  it("accepts what the standardwebhooks package signs, from a Headers or a plain object", async () => {
    // One instant for the signature and its header: two clock reads can straddle a second.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const signature = new Webhook(secret).sign("msg_1", at, body);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(at.getTime() / 1000), "webhook-signature": signature };
    expect(await verifyWebhook(secret, headers, body)).toMatchObject({ type: "dataset.created", data: { id: "d" } });
    expect(await verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).toMatchObject({ type: "dataset.created" });
    // During a rotation the header holds two signatures; a receiver holding either secret verifies.
    const next = "whsec_" + btoa("fedcba9876543210fedcba9876543210");
    const both = { ...headers, "webhook-signature": `${new Webhook(next).sign("msg_1", at, body)} ${signature}` };
    expect(await verifyWebhook(secret, both, body)).toMatchObject({ type: "dataset.created" });
    expect(await verifyWebhook(next, both, body)).toMatchObject({ type: "dataset.created" });
    expect(await verifyWebhook([next, secret], headers, body)).toMatchObject({ type: "dataset.created" });
  });

  it("refuses a changed body, another secret, a stale timestamp and missing headers", async () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = { "webhook-id": "msg_2", "webhook-timestamp": String(now), "webhook-signature": new Webhook(secret).sign("msg_2", new Date(now * 1000), body) };
    const reason = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : String(error)));
    expect(await reason(verifyWebhook(secret, headers, body.replace('"d"', '"e"')))).toBe("no_matching_signature");
    expect(await reason(verifyWebhook("whsec_" + btoa("another secret, thirty-two bytes"), headers, body))).toBe("no_matching_signature");
    const old = now - 600;
    expect(
      await reason(verifyWebhook(secret, { ...headers, "webhook-timestamp": String(old), "webhook-signature": new Webhook(secret).sign("msg_2", new Date(old * 1000), body) }, body)),
    ).toBe("stale_timestamp");
    expect(await reason(verifyWebhook(secret, { "webhook-id": "msg_2" }, body))).toBe("missing_headers");
  });
});
