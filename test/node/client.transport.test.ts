// Retries, errors and pagination of the client against a scripted fetch: what is retried, with
// which Idempotency-Key and signature, and what a caller gets when it gives up.
import { describe, expect, it } from "vitest";
import { PubsetClient, PubsetError, PubsetNetworkError } from "../../src/client/index.ts";
import { parseRetryAfter, retryDelayMs, DEFAULT_RETRY } from "../../src/client/retry.ts";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: Uint8Array | null;
}

type Reply = Response | Error | ((seen: Seen) => Response);

function scripted(replies: Reply[]) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
    const entry = { method: request.method, url: request.url, headers: request.headers, body };
    seen.push(entry);
    const reply = replies.shift();
    if (reply === undefined) throw new Error("no more scripted replies");
    if (reply instanceof Error) throw reply;
    return typeof reply === "function" ? reply(entry) : reply;
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const KEY = { keyId: "pk_test", secret: "s3cret" };
const FAST = { baseDelayMs: 1, maxDelayMs: 20 };
const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), { ...init, headers: { "content-type": "application/json", ...init.headers } });
const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ type: `/problems/${code}`, title: code, status, detail: `${code} happened`, code, ...extra }), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
const CREATED = { id: "d", name: "n", version: "v", properties: {}, owner: "u", team: "t", visibility: "private", source: "/s.gz" };

describe("retries", () => {
  it.each(["not_initialized", "not_configured"])("does not retry a 503 %s: a server that is not set up stays so", async (code) => {
    const { seen, fetch } = scripted([problem(503, code)]);
    const client = new PubsetClient({ url: "http://api.test", fetch, retry: FAST });
    await expect(client.get("d")).rejects.toMatchObject({ status: 503, code });
    expect(seen).toHaveLength(1);
  });

  it("retries 503, 429 and network errors with one Idempotency-Key and a fresh signature each time", async () => {
    const { seen, fetch } = scripted([problem(503, "service_unavailable"), new TypeError("fetch failed"), problem(429, "rate_limited", {}, { "retry-after": "0" }), json(CREATED, { status: 201 })]);
    const client = new PubsetClient({ url: "http://api.test", key: KEY, fetch, retry: FAST });
    expect(await client.create({ name: "n" }, "a,b\n1,2\n")).toEqual(CREATED);
    expect(seen).toHaveLength(4);
    const keys = new Set(seen.map((s) => s.headers.get("idempotency-key")));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(seen.map((s) => s.headers.get("signature"))).size).toBe(4);
    expect(new Set(seen.map((s) => s.headers.get("signature-input"))).size).toBe(4);
    const bodies = seen.map((s) => Buffer.from(s.body ?? new Uint8Array()).toString("base64"));
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(seen.map((s) => s.headers.get("content-digest"))).size).toBe(1);
  });

  it("gives each logical write its own Idempotency-Key", async () => {
    const { seen, fetch } = scripted([json(CREATED, { status: 201 }), json(CREATED, { status: 201 })]);
    const client = new PubsetClient({ url: "http://api.test", key: KEY, fetch });
    await client.create({ name: "n" }, "a\n1\n");
    await client.create({ name: "n" }, "a\n1\n");
    expect(seen[0]?.headers.get("idempotency-key")).not.toBe(seen[1]?.headers.get("idempotency-key"));
  });

  it("stops after the configured retries with PubsetNetworkError", async () => {
    const { seen, fetch } = scripted([new TypeError("a"), new TypeError("b"), new TypeError("c")]);
    const client = new PubsetClient({ url: "http://api.test", fetch, retry: { ...FAST, retries: 2 } });
    const error = await client.get("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PubsetNetworkError);
    expect((error as PubsetNetworkError).attempts).toBe(3);
    expect(seen).toHaveLength(3);
  });

  it("returns the last retryable answer as a PubsetError when retries run out", async () => {
    const { fetch } = scripted([problem(503, "service_unavailable"), problem(503, "service_unavailable")]);
    const client = new PubsetClient({ url: "http://api.test", fetch, retry: { ...FAST, retries: 1 } });
    await expect(client.get("x")).rejects.toMatchObject({ status: 503, code: "service_unavailable" });
  });

  it("does not retry other errors, and exposes status, code, detail and extension members", async () => {
    const { seen, fetch } = scripted([problem(422, "invalid_csv", { row: 3, expected: 2, found: 1 })]);
    const client = new PubsetClient({ url: "http://api.test", key: KEY, fetch, retry: FAST });
    const error = await client.append("d", "1,2,3\n").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PubsetError);
    expect(error).toMatchObject({ status: 422, code: "invalid_csv", detail: "invalid_csv happened", problem: { row: 3, expected: 2, found: 1 } });
    expect(seen).toHaveLength(1);
  });

  it("makes a PubsetError of a non-problem error body", async () => {
    const { fetch } = scripted([new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" })]);
    const error = await new PubsetClient({ fetch }).get("x").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: "http_502", detail: "<html>bad gateway</html>" });
  });

  it("reads Retry-After as seconds or an HTTP date, and caps every wait", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(retryDelayMs(0, 120_000, DEFAULT_RETRY)).toBe(DEFAULT_RETRY.maxDelayMs);
    expect(retryDelayMs(3, null, DEFAULT_RETRY, () => 0.999)).toBeLessThan(DEFAULT_RETRY.baseDelayMs * 8);
    expect(retryDelayMs(3, null, DEFAULT_RETRY, () => 0)).toBe(0);
  });
});

describe("requests", () => {
  it("follows Link rel=next across pages, resolving relative targets", async () => {
    const { seen, fetch } = scripted([
      json({ results: [{ id: "1" }, { id: "2" }] }, { headers: { link: '</v1/dataset?team=t&limit=2&cursor=abc>; rel="next"' } }),
      json({ results: [{ id: "3" }] }),
    ]);
    const client = new PubsetClient({ url: "http://api.test/", fetch });
    const ids: string[] = [];
    for await (const item of client.list({ team: "t", limit: 2 })) ids.push(item.id);
    expect(ids).toEqual(["1", "2", "3"]);
    expect(seen.map((s) => s.url)).toEqual(["http://api.test/v1/dataset?team=t&limit=2", "http://api.test/v1/dataset?team=t&limit=2&cursor=abc"]);
  });

  it("signs reads only when it has a key, and builds every path", async () => {
    const page = { columns: ["a"], rows: [["1"]], offset: 5, total: 9 };
    const { seen, fetch } = scripted([json(page), json(page), new Response(null, { status: 204 })]);
    await new PubsetClient({ url: "http://api.test", fetch }).rows("d", { offset: 5, limit: 1 });
    const signed = new PubsetClient({ url: "http://api.test", key: KEY, fetch });
    await signed.rows("d", { version: "v" });
    await signed.delete("d");
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      "GET http://api.test/v1/dataset/d/latest/rows?offset=5&limit=1",
      "GET http://api.test/v1/dataset/d/v/rows",
      "DELETE http://api.test/v1/dataset/d",
    ]);
    expect(seen[0]?.headers.has("signature")).toBe(false);
    expect(seen[1]?.headers.get("signature-input")).toMatch(/^sig1=\("@method" "@authority" "@path"\);created=\d+;keyid="pk_test";nonce="/);
    expect(seen[2]?.headers.get("idempotency-key")).toBeTruthy();
  });

  it("sends If-Match as a quoted version", async () => {
    const { seen, fetch } = scripted([json(CREATED)]);
    await new PubsetClient({ url: "http://api.test", key: KEY, fetch }).update("d", { collection: { name: "x" } }, { ifMatch: "v1" });
    expect(seen[0]?.headers.get("if-match")).toBe('"v1"');
    expect(seen[0]?.method).toBe("PUT");
  });
});
