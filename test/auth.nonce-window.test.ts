// docs/api.md#signing-requests: a write's nonce stays recorded until `created` + window + 1 s, whatever
// SIGNATURE_WINDOW_SECONDS says, so a signature can never be replayed while it still verifies.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import worker from "../src/index.ts";
import { nonceExpiry, recordNonce } from "../src/auth/store.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { ORIGIN, collectionPart, csvPart, expectProblem, multipart } from "./helpers/http.ts";

async function signedCreate(key: TestKey, created: number, nonce: string, vars: Record<string, string> = {}) {
  const { body, contentType } = multipart([collectionPart({ name: "nonce" }), csvPart("a\n1\n")]);
  const url = `${ORIGIN}/v1/dataset`;
  const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key, { created, nonce });
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { method: "POST", headers, body }), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

async function storedExpiry(key: TestKey, nonce: string): Promise<number | undefined> {
  const row = await env.DB.prepare("SELECT expires FROM nonces WHERE key_id = ? AND nonce = ?").bind(key.keyId, nonce).first<{ expires: number }>();
  return row?.expires;
}

describe("nonce lifetime", () => {
  it("is recorded until created + window + 1 s with the default window", async () => {
    const key = await createKey("nonce-team", "nonce-default");
    const created = Math.floor(Date.now() / 1000) - 290;
    expect((await signedCreate(key, created, "n-default")).status).toBe(201);
    expect(await storedExpiry(key, "n-default")).toBe(created + 300 + 1);
    await expectProblem(await signedCreate(key, created, "n-default"), 401, "nonce_reused");
  });

  it("follows a wider SIGNATURE_WINDOW_SECONDS: an hour-old signature's nonce is still held", async () => {
    const key = await createKey("nonce-team", "nonce-wide");
    const created = Math.floor(Date.now() / 1000) - 3500;
    const wide = { SIGNATURE_WINDOW_SECONDS: "3600" };
    expect((await signedCreate(key, created, "n-wide", wide)).status).toBe(201);
    expect(await storedExpiry(key, "n-wide")).toBe(created + 3600 + 1);
    await expectProblem(await signedCreate(key, created, "n-wide", wide), 401, "nonce_reused");
  });

  it("at the boundary: refused in the last second a signature verifies, free one second later", async () => {
    const key = await createKey("nonce-team", "nonce-boundary");
    const created = 1_800_000_000;
    const window = 300;
    const expires = nonceExpiry(created, window);
    expect(await recordNonce(env.DB, key.keyId, "b", created - window, expires)).toBe(true);
    // `created + window` is the last second the signature verifies (|now - created| <= window).
    expect(await recordNonce(env.DB, key.keyId, "b", created + window, expires)).toBe(false);
    expect(await recordNonce(env.DB, key.keyId, "b", created + window + 1, nonceExpiry(created + window + 1, window))).toBe(true);
  });
});
