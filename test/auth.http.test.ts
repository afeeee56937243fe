// Every 401 of docs/api.md#errors through the worker's real fetch handler, plus the rule that a failed
// signature is never served as anonymous.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import { revokeKey } from "../src/auth/store.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, expectProblem, multipart, send } from "./helpers/http.ts";
import { exports } from "cloudflare:workers";
import { contentObjectCount } from "./helpers/storage.ts";

function createBody() {
  return multipart([collectionPart({ name: "auth" }), csvPart("a\n1\n")]);
}

async function signedCreate(
  options: { key?: TestKey; created?: number; nonce?: string; keyId?: string; secret?: string; body?: Uint8Array; mutate?: (h: Headers) => void } = {},
) {
  const key = options.key ?? (await createKey("auth-team", "auth-user"));
  const { body, contentType } = createBody();
  const url = `${ORIGIN}/v1/dataset`;
  const headers = await signRequest(
    { method: "POST", url, headers: { "Content-Type": contentType }, body },
    { keyId: options.keyId ?? key.keyId, secret: options.secret ?? key.secret },
    { created: options.created, nonce: options.nonce },
  );
  options.mutate?.(headers);
  return exports.default.fetch(new Request(url, { method: "POST", headers, body: options.body ?? body }));
}

describe("signed writes over HTTP", () => {
  it("a correct signature creates", async () => {
    expect((await signedCreate()).status).toBe(201);
  });

  it("signature_invalid: wrong secret, tampered signature, malformed header", async () => {
    const wrongSecret = await expectProblem(await signedCreate({ secret: "not-the-secret" }), 401, "signature_invalid");
    // It names the request as received, to compare with what was signed (a proxy's Host, a rewritten path).
    expect(wrongSecret.detail).toBe(
      "the signature does not verify: check that it was made with this key's secret, over the request as the API received it (POST pubset.test/v1/dataset)",
    );
    await expectProblem(await signedCreate({ mutate: (h) => h.set("signature", "sig1=:AAAA:") }), 401, "signature_invalid");
    await expectProblem(await signedCreate({ mutate: (h) => h.set("signature-input", "sig1=(") }), 401, "signature_invalid");
  });

  it("signature_expired: created outside ±300 s", async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectProblem(await signedCreate({ created: now - 301 }), 401, "signature_expired");
    await expectProblem(await signedCreate({ created: now + 301 }), 401, "signature_expired");
  });

  it("unknown_key: unknown and revoked keys", async () => {
    await expectProblem(await signedCreate({ keyId: "pk_nobody" }), 401, "unknown_key");
    const key = await createKey("auth-team", "auth-revoked");
    await revokeKey(env.DB, key.keyId, new Date().toISOString());
    await expectProblem(await send("GET", "/v1/dataset", { key }), 401, "unknown_key");
  });

  it("digest_mismatch: body changed after signing, or no Content-Digest", async () => {
    const other = multipart([collectionPart({ name: "tampered" }), csvPart("a\n1\n")], "pubset-test-boundary-fixed");
    const key = await createKey("auth-team", "auth-digest");
    const url = `${ORIGIN}/v1/dataset`;
    const signedFor = multipart([collectionPart({ name: "original" }), csvPart("a\n1\n")], "pubset-test-boundary-fixed");
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": signedFor.contentType }, body: signedFor.body }, key);
    const before = (await contentObjectCount());
    await expectProblem(await exports.default.fetch(new Request(url, { method: "POST", headers, body: other.body })), 401, "digest_mismatch");
    expect((await contentObjectCount())).toBe(before);
    await expectProblem(await signedCreate({ mutate: (h) => h.delete("content-digest") }), 401, "digest_mismatch");
  });

  it("nonce_reused: the same nonce twice within the window", async () => {
    const key = await createKey("auth-team", "auth-nonce");
    const nonce = "fixed-nonce-" + crypto.randomUUID();
    expect((await signedCreate({ key, nonce })).status).toBe(201);
    await expectProblem(await signedCreate({ key, nonce }), 401, "nonce_reused");
    const otherKey = await createKey("auth-team", "auth-nonce-2");
    expect((await signedCreate({ key: otherKey, nonce })).status).toBe(201);
  });

  it("signature_required: no signature on a write", async () => {
    const { body, contentType } = createBody();
    await expectProblem(await send("POST", "/v1/dataset", { body, headers: { "Content-Type": contentType } }), 401, "signature_required");
  });
});

describe("signed reads", () => {
  it("a failing signature on a GET of public data is a 401, not an anonymous read", async () => {
    const key = await createKey("auth-team", "auth-reader");
    const created = await createDataset(key, "a\n1\n", { name: "pub", visibility: "public" });
    expect((await send("GET", `/v1/dataset/${created.id}`)).status).toBe(200);
    const tampered = await send("GET", `/v1/dataset/${created.id}`, { key, tamper: (h) => h.set("signature", "sig1=:AAAA:") });
    await expectProblem(tampered, 401, "signature_invalid");
  });

  it("the query string must be covered when present", async () => {
    const key = await createKey("auth-team", "auth-query");
    const url = `${ORIGIN}/v1/dataset?limit=5`;
    const headers = await signRequest({ method: "GET", url: `${ORIGIN}/v1/dataset` }, key);
    await expectProblem(await exports.default.fetch(new Request(url, { headers })), 401, "signature_invalid");
  });
});
