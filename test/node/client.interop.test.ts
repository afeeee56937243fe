// Interoperability with an independent RFC 9421 implementation (npm `http-message-signatures`,
// its own structured-field parser and Node's HMAC): our client's signatures verify under its
// verifier, and its signatures verify under ours. The server-side half runs in client.e2e.
import { createHash } from "node:crypto";
import { createSigner, createVerifier, httpbis } from "http-message-signatures";
import { describe, expect, it } from "vitest";
import { verifyRequestSignature } from "../../src/wire/verify.ts";
import { PubsetClient } from "../../src/client/index.ts";
import { signedHeaders } from "../../src/client/request-signing.ts";
import { B_2_5, SHARED_SECRET_BASE64, TEST_REQUEST } from "../fixtures/rfc9421/appendix-b.ts";

const KEY = { keyId: "pk_interop", secret: "interop-secret-0123456789" };

interface Captured {
  method: string;
  url: string;
  headers: Record<string, string>;
}

/** The requests a client sends, answered with an empty JSON list / record. */
function capturingClient() {
  const captured: Captured[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    await request.arrayBuffer();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    captured.push({ method: request.method, url: request.url, headers });
    const body = request.method === "GET" && request.url.includes("?") ? { results: [] } : { id: "d" };
    return new Response(JSON.stringify(body), { status: request.method === "POST" ? 201 : 200, headers: { "content-type": "application/json" } });
  };
  return { captured, client: new PubsetClient({ url: "https://api.example.com", key: KEY, fetch: fetch as typeof globalThis.fetch }) };
}

function theirVerify(request: Captured, requiredFields: string[]) {
  return httpbis.verifyMessage(
    {
      keyLookup: async (params) => (params.keyid === KEY.keyId ? { id: KEY.keyId, algs: ["hmac-sha256"], verify: createVerifier(KEY.secret, "hmac-sha256") } : null),
      requiredFields,
      requiredParams: ["created", "keyid", "nonce"],
      tolerance: 5,
    },
    request,
  );
}

describe("our signatures under http-message-signatures", () => {
  it("verify for a signed upload (content-digest covered) and a signed query", async () => {
    const { captured, client } = capturingClient();
    await client.create({ name: "Cities" }, "a,b\n1,2\n");
    for await (const _ of client.list({ owner: "u1", limit: 5 })) void _;
    const [post, get] = captured;
    if (!post || !get) throw new Error("expected two requests");
    expect(await theirVerify(post, ["@method", "@authority", "@path", "content-digest"])).toBe(true);
    expect(await theirVerify(get, ["@method", "@authority", "@path", "@query"])).toBe(true);
  });

  it("fail there when the request is altered", async () => {
    const { captured, client } = capturingClient();
    await client.get("5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42");
    const [request] = captured;
    if (!request) throw new Error("expected a request");
    expect(await theirVerify({ ...request, url: request.url.replace("5b1c", "6b1c") }, ["@path"])).toBe(false);
  });
});

describe("the fields that decide a write (RFC 9421 §7.2.1)", () => {
  const UPLOAD_URL = "https://api.example.com/v1/uploads/0f8e1c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  const DECIDING = { "content-type": "application/partial-upload", "upload-offset": "0", "upload-complete": "?1", "upload-length": "8", "if-match": '"v1"', "idempotency-key": "k-1" };
  const body = "a,b\n1,2\n";
  const digest = `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;
  const ours = (headers: Headers) =>
    verifyRequestSignature(
      { method: "PATCH", url: UPLOAD_URL, headers },
      {
        nowSeconds: Math.floor(Date.now() / 1000),
        windowSeconds: 300,
        requireNonce: true,
        hasBody: true,
        lookupKey: async (keyId) => (keyId === KEY.keyId ? new TextEncoder().encode(KEY.secret) : null),
      },
    );

  it("our client covers every one it sends, and theirs verifies that", async () => {
    const headers = await signedHeaders("PATCH", UPLOAD_URL, new Headers({ ...DECIDING, "content-digest": digest }), KEY, true);
    const captured: Captured = { method: "PATCH", url: UPLOAD_URL, headers: {} };
    headers.forEach((value, name) => (captured.headers[name] = value));
    expect(await theirVerify(captured, ["@method", "@authority", "@path", "content-digest", ...Object.keys(DECIDING)])).toBe(true);
    expect(await theirVerify({ ...captured, headers: { ...captured.headers, "upload-complete": "?0" } }, ["upload-complete"])).toBe(false);
  });

  it("theirs covering them verifies under ours; theirs leaving one out fails, naming it", async () => {
    const sign = (fields: string[]) =>
      httpbis.signMessage(
        { key: createSigner(KEY.secret, "hmac-sha256", KEY.keyId), fields, params: ["created", "keyid", "nonce"], paramValues: { nonce: `n-${fields.length}` } },
        { method: "PATCH", url: UPLOAD_URL, headers: { ...DECIDING, "content-digest": digest } },
      );
    const all = await sign(["@method", "@authority", "@path", "content-digest", ...Object.keys(DECIDING)]);
    expect(await ours(new Headers(all.headers as Record<string, string>))).toMatchObject({ ok: true });
    const short = await sign(["@method", "@authority", "@path", "content-digest", "content-type", "if-match", "idempotency-key", "upload-offset", "upload-length"]);
    expect(await ours(new Headers(short.headers as Record<string, string>))).toMatchObject({ ok: false, code: "signature_invalid", component: "upload-complete" });
  });
});

describe("their signatures under our verifier", () => {
  it("verify, with content-digest, @query, nonce and alg", async () => {
    const body = "a,b\n1,2\n";
    const digest = `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;
    const signed = await httpbis.signMessage(
      {
        key: createSigner(KEY.secret, "hmac-sha256", KEY.keyId),
        fields: ["@method", "@authority", "@path", "@query", "content-digest"],
        params: ["created", "keyid", "nonce", "alg"],
        paramValues: { nonce: "their-nonce-1" },
      },
      { method: "POST", url: "https://api.example.com/v1/dataset?dry=1", headers: { "content-digest": digest } },
    );
    const headers = new Headers(signed.headers as Record<string, string>);
    const result = await verifyRequestSignature(
      { method: "POST", url: "https://api.example.com/v1/dataset?dry=1", headers },
      {
        nowSeconds: Math.floor(Date.now() / 1000),
        windowSeconds: 300,
        requireNonce: true,
        hasBody: true,
        lookupKey: async (keyId) => (keyId === KEY.keyId ? new TextEncoder().encode(KEY.secret) : null),
      },
    );
    expect(result).toMatchObject({ ok: true, keyId: KEY.keyId, nonce: "their-nonce-1" });
  });

  it("agree with RFC 9421 Appendix B.2.5 (the independent library signs the vector byte for byte)", async () => {
    const secret = Buffer.from(SHARED_SECRET_BASE64, "base64");
    const signed = await httpbis.signMessage(
      {
        key: createSigner(secret, "hmac-sha256", B_2_5.keyId),
        name: B_2_5.label,
        fields: ["date", "@authority", "content-type"],
        params: ["created", "keyid"],
        paramValues: { created: new Date(B_2_5.created * 1000) },
      },
      { method: TEST_REQUEST.method, url: TEST_REQUEST.url, headers: Object.fromEntries(TEST_REQUEST.headers) },
    );
    expect(signed.headers["Signature"]).toBe(B_2_5.signature);
    expect(signed.headers["Signature-Input"]).toBe(B_2_5.signatureInput);
  });
});
