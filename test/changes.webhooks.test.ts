// docs/changes.md "Webhooks": the routes (signed, the team's own), the URL checks, and delivery
// end to end: commit → outbox → drain → the real local queue → the consumer → a receiver on
// 127.0.0.1, each delivery verified with the standardwebhooks package, not with our own code.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { checkWebhookUrl } from "../src/changes/webhooks/url.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, expectProblem, send, write } from "./helpers/http.ts";
import { createWebhook, received, receivedAtLeast, unique } from "./helpers/webhooks.ts";

const RECEIVER = env.TEST_WEBHOOK_RECEIVER;

function json(body: Record<string, unknown>): { body: Uint8Array; headers: Record<string, string> } {
  return { body: new TextEncoder().encode(JSON.stringify(body)), headers: { "Content-Type": "application/json" } };
}

let owner: TestKey;
let outsider: TestKey;

beforeAll(async () => {
  owner = await createKey("hooks-team", "hooks-owner");
  outsider = await createKey("hooks-other", "hooks-outsider");
});

describe("webhook URLs", () => {
  it.each([
    ["http://hooks.example.com/in", "not_https"],
    ["ftp://hooks.example.com/in", "not_https"],
    ["https://user:pass@hooks.example.com/in", "credentials"],
    ["https://token@hooks.example.com/in", "credentials"],
    ["https://203.0.113.7/in", "ip_literal"],
    ["https://2130706433/in", "ip_literal"],
    ["https://0x7f.1/in", "ip_literal"],
    ["https://[::1]/in", "ip_literal"],
    ["https://[fd00::1]:8443/in", "ip_literal"],
    ["https://localhost/in", "private_name"],
    ["https://api.localhost/in", "private_name"],
    ["https://printer.local/in", "private_name"],
    ["https://metadata.google.internal/in", "private_name"],
    ["https://router.home.arpa/in", "private_name"],
    ["https://intranet/in", "private_name"],
    ["https://hooks.example.com/in#frag", "fragment"],
    ["not a url", "not_a_url"],
    [`https://hooks.example.com/${"a".repeat(2100)}`, "too_long"],
  ])("refuses %s (%s)", (url, reason) => {
    expect(checkWebhookUrl(url, false)).toEqual({ ok: false, reason });
  });

  it("takes an https URL with a public host name, and http://127.0.0.1 only where local development allows it", () => {
    expect(checkWebhookUrl("https://hooks.example.com/in?x=1", false)).toEqual({ ok: true, url: "https://hooks.example.com/in?x=1", name: "hooks.example.com" });
    expect(checkWebhookUrl("http://127.0.0.1:9999/in", false)).toEqual({ ok: false, reason: "not_https" });
    expect(checkWebhookUrl("http://127.0.0.1:9999/in", true)).toEqual({ ok: true, url: "http://127.0.0.1:9999/in", name: null });
    expect(checkWebhookUrl("http://localhost:9999/in", true)).toEqual({ ok: false, reason: "not_https" });
    expect(checkWebhookUrl("https://127.0.0.2/in", true)).toEqual({ ok: false, reason: "ip_literal" });
  });

  it("a refused URL is a 400 and creates nothing", async () => {
    const body = await expectProblem(await send("POST", "/v1/webhooks", { key: owner, ...json({ url: "https://10.0.0.1/hook" }) }), 400, "invalid_request");
    expect(body.reason).toBe("ip_literal");
    const { results } = (await (await send("GET", "/v1/webhooks", { key: owner })).json()) as { results: unknown[] };
    expect(results.filter((w) => JSON.stringify(w).includes("10.0.0.1"))).toEqual([]);
  });
});

describe("webhook routes", () => {
  it("create, list, show, delete: the team's own, never the secret after creation", async () => {
    const created = await createWebhook(owner, { url: "https://hooks.example.com/a", events: ["dataset.created"] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created).toMatchObject({ url: "https://hooks.example.com/a", events: ["dataset.created"], datasets: [], enabled: true });
    const shown = await send("GET", `/v1/webhooks/${created.id}`, { key: owner });
    expect(shown.status).toBe(200);
    expect(shown.headers.get("Cache-Control")).toMatch(/no-store/);
    const record = (await shown.json()) as Record<string, unknown>;
    expect(Object.keys(record).sort()).toEqual(["created", "datasets", "disabled_reason", "enabled", "events", "id", "url"]);
    const list = (await (await send("GET", "/v1/webhooks", { key: owner })).json()) as { results: Array<{ id: string }> };
    expect(list.results.map((w) => w.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret);

    await expectProblem(await send("GET", `/v1/webhooks/${created.id}`, { key: outsider }), 404, "not_found");
    await expectProblem(await send("DELETE", `/v1/webhooks/${created.id}`, { key: outsider }), 404, "not_found");
    await expectProblem(await send("POST", `/v1/webhooks/${created.id}/secret`, { key: outsider }), 404, "not_found");
    await expectProblem(await send("GET", `/v1/webhooks/${created.id}/deliveries`, { key: outsider }), 404, "not_found");
    const others = (await (await send("GET", "/v1/webhooks", { key: outsider })).json()) as { results: unknown[] };
    expect(others.results).toEqual([]);
    await expectProblem(await send("GET", "/v1/webhooks"), 401, "signature_required");
    await expectProblem(await send("POST", "/v1/webhooks", json({ url: "https://hooks.example.com/a" })), 401, "signature_required");

    expect((await send("DELETE", `/v1/webhooks/${created.id}`, { key: owner })).status).toBe(204);
    await expectProblem(await send("GET", `/v1/webhooks/${created.id}`, { key: owner }), 404, "not_found");
  });

  it("refuses unknown fields, unknown event types and malformed dataset ids", async () => {
    await expectProblem(await send("POST", "/v1/webhooks", { key: owner, ...json({ url: "https://hooks.example.com/a", extra: 1 }) }), 400, "invalid_request");
    await expectProblem(await send("POST", "/v1/webhooks", { key: owner, ...json({ url: "https://hooks.example.com/a", events: ["dataset.exploded"] }) }), 400, "invalid_request");
    await expectProblem(await send("POST", "/v1/webhooks", { key: owner, ...json({ url: "https://hooks.example.com/a", datasets: ["x"] }) }), 400, "invalid_request");
    await expectProblem(await send("GET", "/v1/webhooks/not-a-uuid", { key: owner }), 400, "invalid_request");
  });
});

describe("delivery", { timeout: 60_000 }, () => {
  it("signs each event with Standard Webhooks, one webhook-id per event, the cursor in the body", async () => {
    const name = `basic-${crypto.randomUUID()}`;
    const hook = await createWebhook(owner, { url: `${RECEIVER}/ok/${name}` });
    const d = await createDataset(owner, "a\n1\n", { name: "Hooks basic" });
    const appended = (await (await appendRows(owner, d.id, "2\n")).json()) as { version: string };
    const deliveries = unique(await receivedAtLeast(name, 2));
    const verifier = new Webhook(hook.secret);
    const bodies = deliveries.map((r) => verifier.verify(r.body, r.headers) as { type: string; timestamp: string; data: Record<string, unknown> });
    expect(bodies.map((b) => [b.type, b.data.id, b.data.version, b.data.team])).toEqual([
      ["dataset.created", d.id, d.version, "hooks-team"],
      ["dataset.appended", d.id, appended.version, "hooks-team"],
    ]);
    for (const body of bodies) {
      expect(typeof body.data.cursor).toBe("string");
      expect(body.timestamp).toBe(body.data.occurred);
    }
    // The cursor is the feed's own: the team's feed from it holds the next event.
    const feed = (await (await send("GET", `/v1/changes?since=${String(bodies[0]!.data.cursor)}&limit=1`, { key: owner })).json()) as { results: Array<{ version: string }> };
    expect(feed.results[0]!.version).toBe(appended.version);
    // Another secret does not verify.
    expect(() => new Webhook("whsec_" + btoa("another secret of 32 bytes......")).verify(deliveries[0]!.body, deliveries[0]!.headers)).toThrow();

    const record = (await (await send("GET", `/v1/webhooks/${hook.id}/deliveries`, { key: owner })).json()) as { results: Array<Record<string, unknown>> };
    expect(record.results.map((r) => [r.type, r.status, r.response_code, r.attempts])).toEqual([
      ["dataset.appended", "delivered", 204, 1],
      ["dataset.created", "delivered", 204, 1],
    ]);
  });
});
