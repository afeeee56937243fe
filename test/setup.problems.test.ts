// A server that is not set up (issue 13): an unmigrated D1, as a plain `wrangler dev` on a fresh
// clone has, and a missing or broken KEY_ENCRYPTION_KEY answer 503 with the command that fixes
// it, as problem+json for the API and as an HTML page for the catalog; never a 500.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { signRequest } from "../src/wire/sign.ts";
import { createKey } from "./helpers/keys.ts";
import { collectionPart, csvPart, expectProblem, multipart, ORIGIN } from "./helpers/http.ts";

const app = createApp();

async function fetchWith(bindings: Env, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

const unmigrated = { ...env, DB: env.UNMIGRATED_DB } as Env;

describe("an unmigrated database", () => {
  it.each(["/v1/dataset", "/v1/dataset?q=cities", "/v1/dataset/5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42"])("GET %s is 503 not_initialized naming the command", async (path) => {
    const response = await fetchWith(unmigrated, new Request(ORIGIN + path));
    const problem = await expectProblem(response, 503, "not_initialized");
    expect(String(problem.detail)).toContain("npx wrangler d1 migrations apply pubset --local");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("a signed write is 503 not_initialized too", async () => {
    const { body, contentType } = multipart([collectionPart({ name: "x" }), csvPart("a\n1\n")]);
    const headers = await signRequest(
      { method: "POST", url: `${ORIGIN}/v1/dataset`, headers: new Headers({ "Content-Type": contentType }), body },
      { keyId: "pk_none", secret: "s" },
    );
    await expectProblem(await fetchWith(unmigrated, new Request(`${ORIGIN}/v1/dataset`, { method: "POST", headers, body })), 503, "not_initialized");
  });

  it.each(["/", "/datasets/5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42"])("the catalog page %s says so in HTML, uncached", async (path) => {
    const response = await fetchWith(unmigrated, new Request(ORIGIN + path, { headers: { Accept: "text/html" } }));
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain("<code>npx wrangler d1 migrations apply pubset --local</code>");
  });
});

describe("KEY_ENCRYPTION_KEY", () => {
  async function signedList(bindings: Env): Promise<Response> {
    const key = await createKey("kek-team", "kek-user");
    const url = `${ORIGIN}/v1/dataset`;
    const headers = await signRequest({ method: "GET", url, headers: new Headers() }, { keyId: key.keyId, secret: key.secret });
    return fetchWith(bindings, new Request(url, { headers }));
  }

  it("missing: a signed request is 503 not_configured, logged, and anonymous reads still work", async () => {
    const bindings = { ...env } as Record<string, unknown>;
    delete bindings.KEY_ENCRYPTION_KEY;
    const problem = await expectProblem(await signedList(bindings as unknown as Env), 503, "not_configured");
    expect(String(problem.detail)).toContain("KEY_ENCRYPTION_KEY is not set");
    expect(String(problem.detail)).not.toContain("base64");
    expect((await fetchWith(bindings as unknown as Env, new Request(`${ORIGIN}/v1/dataset`))).status).toBe(200);
  });

  it("not 32 bytes of base64: 503 not_configured saying so", async () => {
    const problem = await expectProblem(await signedList({ ...env, KEY_ENCRYPTION_KEY: "not a key" } as Env), 503, "not_configured");
    expect(String(problem.detail)).toContain("not 32 bytes of base64");
  });
});
