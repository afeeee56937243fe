// docs/edge-and-caching.md rate limits, through the real local Rate Limiting binding: per verified key when
// signed, per client address otherwise; draft-ietf-httpapi-ratelimit-headers-11 fields on every
// response; 429 rate_limited with Retry-After past the limit, and nothing changed.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import { clientAddressKey } from "../src/edge/rate-limit.ts";
import worker from "../src/index.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, expectProblem, multipart, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";

const POLICY = /^"(signed|anonymous)";q=\d+;w=(10|60)$/;
const QUOTA = /^"(signed|anonymous)";r=(\d+);t=(\d+)$/;

/** The worker with both limiters swapped for the 3-a-minute one. */
async function low(request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const lowEnv = {
    ...env,
    SIGNED_RATE_LIMIT: env.TEST_LOW_RATE_LIMIT,
    ANONYMOUS_RATE_LIMIT: env.TEST_LOW_RATE_LIMIT,
    RATE_LIMIT_SIGNED: env.TEST_LOW_RATE_LIMIT_QUOTA,
    RATE_LIMIT_ANONYMOUS: env.TEST_LOW_RATE_LIMIT_QUOTA,
  };
  const response = await worker.fetch(request, lowEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const randomAddress = () => `10.${Array.from(crypto.getRandomValues(new Uint8Array(3))).join(".")}`;

function remaining(response: Response): number {
  const match = QUOTA.exec(response.headers.get("ratelimit") ?? "");
  if (!match) throw new Error(`no RateLimit field: ${response.headers.get("ratelimit")}`);
  return Number(match[2]);
}

async function signed(key: TestKey, path: string, init: { method?: string; body?: Uint8Array; contentType?: string; secret?: string; address?: string } = {}) {
  const url = ORIGIN + path;
  const headers = new Headers(init.contentType ? { "Content-Type": init.contentType } : {});
  const signedHeaders = await signRequest({ method: init.method ?? "GET", url, headers, body: init.body }, { keyId: key.keyId, secret: init.secret ?? key.secret });
  if (init.address !== undefined) signedHeaders.set("CF-Connecting-IP", init.address);
  return new Request(url, { method: init.method ?? "GET", headers: signedHeaders, body: init.body });
}

describe("RateLimit fields", () => {
  it("are on every response, successes and errors, in draft-11 syntax", async () => {
    const key = await createKey("limits-team", "limits-fields");
    const d = await createDataset(key, "a\n1\n", { name: "limits", visibility: "public" });
    const responses = [
      await send("GET", "/v1/dataset"),
      await send("GET", `/v1/dataset/${d.id}`, { key }),
      await send("GET", `/v1/dataset/${crypto.randomUUID()}`),
      await send("GET", "/v1/dataset", { key, tamper: (h) => h.set("signature", "sig1=:AAAA:") }),
      await send("GET", "/", { headers: { Accept: "text/html" } }),
    ];
    for (const response of responses) {
      await response.arrayBuffer();
      expect(response.headers.get("ratelimit-policy")).toMatch(POLICY);
      expect(response.headers.get("ratelimit")).toMatch(QUOTA);
    }
    expect(responses[1]!.headers.get("ratelimit-policy")).toMatch(/^"signed"/);
    expect(responses[0]!.headers.get("ratelimit-policy")).toMatch(/^"anonymous"/);
    const exposed = (responses[0]!.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const name of ["ratelimit", "ratelimit-policy", "retry-after"]) expect(exposed).toContain(name);
  });
});

/**
 * Waits for a new minute when the current one is nearly over: the quotas are counted in fixed
 * one-minute windows, and a test that straddles two would see its count start again.
 */
async function freshWindow(): Promise<void> {
  const intoMinute = (Date.now() / 1000) % 60;
  if (intoMinute > 50) await new Promise((resolve) => setTimeout(resolve, (60.5 - intoMinute) * 1000));
}

describe("past the limit", () => {
  it("anonymous: per client address; the 4th request in a minute is 429 with Retry-After", { timeout: 30_000 }, async () => {
    await freshWindow();
    const address = randomAddress();
    const request = () => new Request(`${ORIGIN}/v1/dataset`, { headers: { "CF-Connecting-IP": address } });
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const response = await low(request());
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-policy")).toBe('"anonymous";q=3;w=60');
      seen.push(remaining(response));
    }
    expect(seen).toEqual([2, 1, 0]);
    const limited = await low(request());
    expect(limited.headers.get("cache-control")).toBe("no-store");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(remaining(limited)).toBe(0);
    await expectProblem(limited, 429, "rate_limited");
    // Another address has its own quota.
    expect((await low(new Request(`${ORIGIN}/v1/dataset`, { headers: { "CF-Connecting-IP": randomAddress() } }))).status).toBe(200);
  });

  it("signed: per verified key; forged signatures naming the key spend none of its quota", { timeout: 30_000 }, async () => {
    const key = await createKey("limits-team", "limits-signed");
    const other = await createKey("limits-team", "limits-other");
    await freshWindow();
    // Forged from their own address: they spend that address's budget, not the key's.
    const forger = randomAddress();
    for (let i = 0; i < 3; i++) {
      await expectProblem(await low(await signed(key, "/v1/dataset", { secret: "forged", address: forger })), 401, "signature_invalid");
    }
    for (let i = 0; i < 3; i++) expect((await low(await signed(key, "/v1/dataset"))).status).toBe(200);
    await expectProblem(await low(await signed(key, "/v1/dataset")), 429, "rate_limited");
    expect((await low(await signed(other, "/v1/dataset"))).status).toBe(200);

    // A write over the limit changes nothing.
    const { body, contentType } = multipart([collectionPart({ name: "over the limit" }), csvPart("a\n1\n")]);
    await expectProblem(await low(await signed(key, "/v1/dataset", { method: "POST", body, contentType })), 429, "rate_limited");
    const names = await env.DB.prepare("SELECT name FROM datasets WHERE owner_id = ?").bind(key.user).all<{ name: string }>();
    expect(names.results.map((r) => r.name)).not.toContain("over the limit");
  });

  it("failed signatures count against the address: made-up key ids, wrong secrets and garbage get 429 past it", { timeout: 30_000 }, async () => {
    const key = await createKey("limits-team", "limits-failures");
    await freshWindow();
    const address = randomAddress();
    const madeUp = (): TestKey => ({ ...key, keyId: `pk_${crypto.randomUUID()}` });
    const failures = [
      async () => low(await signed(madeUp(), "/v1/dataset", { address })),
      async () => low(await signed(key, "/v1/dataset", { secret: "wrong", address })),
      async () => {
        const request = await signed(key, "/v1/dataset", { address });
        request.headers.set("signature", "sig1=:Z2FyYmFnZQ==:");
        return low(request);
      },
    ];
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const fail of failures) {
        const response = await fail();
        statuses.push(response.status);
        await response.arrayBuffer();
      }
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429, 429, 429, 429, 429]);
    const limited = await low(await signed(madeUp(), "/v1/dataset", { address }));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await expectProblem(limited, 429, "rate_limited");
    // The key itself, from another address, is untouched.
    expect((await low(await signed(key, "/v1/dataset", { address: randomAddress() }))).status).toBe(200);
  });

  it("once an address is over budget, a new made-up key id costs no D1 query", { timeout: 30_000 }, async () => {
    await freshWindow();
    const address = randomAddress();
    const key = await createKey("limits-team", "limits-queries");
    for (let i = 0; i < 3; i++) await (await low(await signed({ ...key, keyId: `pk_${crypto.randomUUID()}` }, "/v1/dataset", { address }))).arrayBuffer();
    await (await low(await signed({ ...key, keyId: `pk_${crypto.randomUUID()}` }, "/v1/dataset", { address }))).arrayBuffer();
    const counting = countingD1(env.DB);
    const ctx = createExecutionContext();
    const request = await signed({ ...key, keyId: `pk_${crypto.randomUUID()}` }, "/v1/dataset", { address });
    const lowEnv = { ...env, DB: counting.db, ANONYMOUS_RATE_LIMIT: env.TEST_LOW_RATE_LIMIT, RATE_LIMIT_ANONYMOUS: env.TEST_LOW_RATE_LIMIT_QUOTA };
    const response = await worker.fetch(request, lowEnv, ctx);
    await waitOnExecutionContext(ctx);
    await expectProblem(response, 429, "rate_limited");
    expect(counting.queries.filter((q) => /api_keys|keys/i.test(q.sql))).toEqual([]);
  });

  it("IPv6 clients are limited per /64; IPv4-mapped addresses as the IPv4 address", () => {
    const at = (ip: string) => clientAddressKey(new Request(ORIGIN, { headers: { "CF-Connecting-IP": ip } }));
    expect(at("2001:db8:1:2:aaaa::1")).toBe(at("2001:0db8:0001:0002:ffff:1:2:3"));
    expect(at("2001:db8:1:3::1")).not.toBe(at("2001:db8:1:2::1"));
    expect(at("203.0.113.7")).not.toBe(at("203.0.113.8"));
    expect(at("::ffff:203.0.113.7")).toBe(at("203.0.113.7"));
    expect(at("::ffff:203.0.113.7")).not.toBe(at("::ffff:203.0.113.8"));
  });
});
