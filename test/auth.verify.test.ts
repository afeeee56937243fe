// verifyRequestSignature against docs/api.md#signing-requests: a signed round trip, then every failure code.
import { describe, expect, it } from "vitest";
import { utf8 } from "../src/wire/bytes.ts";
import { signComponents, signRequest, type SignOptions } from "../src/wire/sign.ts";
import type { SignableRequest } from "../src/wire/signature-base.ts";
import { VERIFY_ERROR_DETAILS, verifyRequestSignature, type VerifyPolicy } from "../src/wire/verify.ts";

const NOW = 1_800_000_000;
const KEY = { keyId: "pk_test", secret: "test-secret-ascii" };
const URL_WITH_QUERY = "https://api.example.com/v1/dataset/abc?limit=5";
const URL_PLAIN = "https://api.example.com/v1/dataset";
const BODY = utf8("name,city\nAda,London\n");

function policy(overrides: Partial<VerifyPolicy> = {}): VerifyPolicy {
  return {
    nowSeconds: NOW,
    windowSeconds: 300,
    requireNonce: true,
    hasBody: true,
    lookupKey: async (keyId) => (keyId === KEY.keyId ? utf8(KEY.secret) : null),
    ...overrides,
  };
}

async function signedPost(options: SignOptions = {}, url = URL_WITH_QUERY): Promise<SignableRequest> {
  const headers = await signRequest({ method: "POST", url, body: BODY }, KEY, { created: NOW, ...options });
  return { method: "POST", url, headers };
}

/** A POST with a body signed over exactly `components` and `params`, bypassing signRequest's policy. */
async function customPost(components: string[], params: Record<string, string | number>, url = URL_WITH_QUERY) {
  const headers = await signRequest({ method: "POST", url, body: BODY }, KEY, { created: NOW });
  const request = { method: "POST", url, headers };
  return { ...request, headers: await signComponents(request, components, params, KEY) };
}

const ALL = ["@method", "@authority", "@path", "@query", "content-digest"];
const PARAMS = { created: NOW, keyid: KEY.keyId, nonce: "n-1" };

async function codeOf(request: SignableRequest, overrides: Partial<VerifyPolicy> = {}) {
  const result = await verifyRequestSignature(request, policy(overrides));
  return result.ok ? "ok" : result.code;
}

function withHeader(request: SignableRequest, name: string, value: string | null): SignableRequest {
  const headers = new Headers(request.headers);
  if (value === null) headers.delete(name);
  else headers.set(name, value);
  return { ...request, headers };
}

describe("round trip", () => {
  it("accepts a signed write with a body and a query", async () => {
    const request = await signedPost({ nonce: "nonce-1", expires: NOW + 60 });
    const result = await verifyRequestSignature(request, policy());
    expect(result).toMatchObject({ ok: true, keyId: KEY.keyId, nonce: "nonce-1", created: NOW, expires: NOW + 60 });
    expect(result.ok && result.digest?.algorithm).toBe("sha-256");
  });

  it("covers exactly the required components", async () => {
    const request = await signedPost({ nonce: "n", label: "pubset" });
    expect(request.headers.get("signature-input")).toBe(
      `pubset=("@method" "@authority" "@path" "@query" "content-digest");created=${NOW};keyid="${KEY.keyId}";nonce="n"`,
    );
  });

  it("accepts an unsigned-body read without a nonce, and a lowercase method as fetch sends it", async () => {
    const headers = await signRequest({ method: "get", url: URL_PLAIN }, KEY, { created: NOW });
    const result = await verifyRequestSignature({ method: "GET", url: URL_PLAIN, headers }, policy({ hasBody: false, requireNonce: false }));
    expect(result).toMatchObject({ ok: true, digest: null });
    expect(headers.get("signature-input")).not.toContain('"@query"');
    expect(headers.has("content-digest")).toBe(false);
  });

  it("gives a random base64url nonce by default", async () => {
    const a = await signedPost();
    const b = await signedPost();
    const nonce = (r: SignableRequest) => /;nonce="([^"]+)"/.exec(r.headers.get("signature-input") ?? "")?.[1];
    expect(nonce(a)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(nonce(a)).not.toBe(nonce(b));
  });

  it('accepts extra covered components and alg="hmac-sha256"', async () => {
    const url = URL_WITH_QUERY;
    const headers = await signRequest({ method: "POST", url, headers: { "content-type": "text/csv" }, body: BODY }, KEY);
    const request = { method: "POST", url, headers };
    const signed = { ...request, headers: await signComponents(request, [...ALL, "content-type"], { ...PARAMS, alg: "hmac-sha256" }, KEY) };
    expect(await codeOf(signed)).toBe("ok");
  });

  it("the signer refuses to cover a field the request lacks", async () => {
    await expect(customPost([...ALL, "content-type"], PARAMS)).rejects.toThrow();
  });

  it("has a default detail for every code", () => {
    expect(Object.keys(VERIFY_ERROR_DETAILS).sort()).toEqual(
      ["digest_mismatch", "signature_expired", "signature_invalid", "signature_required", "unknown_key"].sort(),
    );
  });
});

describe("signature_required and malformed fields", () => {
  it("neither field → signature_required", async () => {
    expect(await codeOf({ method: "POST", url: URL_PLAIN, headers: new Headers() })).toBe("signature_required");
  });

  it("only one of the two fields → signature_invalid", async () => {
    const request = await signedPost();
    expect(await codeOf(withHeader(request, "signature", null))).toBe("signature_invalid");
    expect(await codeOf(withHeader(request, "signature-input", null))).toBe("signature_invalid");
  });

  it.each([
    ["an unterminated inner list", "signature-input", 'sig1=("@method" "@authority"'],
    ["a trailing comma", "signature-input", 'sig1=("@method");created=1;keyid="k",'],
    ["an item instead of an inner list", "signature-input", 'sig1="@method";created=1;keyid="k"'],
    ["an empty field", "signature-input", ""],
    ["bad base64", "signature", "sig1=:not*base64:"],
    ["a string instead of bytes", "signature", 'sig1="abc"'],
  ])("%s → signature_invalid", async (_, field, value) => {
    const request = await signedPost({ label: "sig1" });
    expect(await codeOf(withHeader(request, field, value))).toBe("signature_invalid");
  });

  it("two signatures → signature_invalid", async () => {
    const request = await signedPost({ label: "a" });
    const input = request.headers.get("signature-input") ?? "";
    const signature = request.headers.get("signature") ?? "";
    const twice = withHeader(
      withHeader(request, "signature-input", `${input}, ${input.replace(/^a=/, "b=")}`),
      "signature",
      `${signature}, ${signature.replace(/^a=/, "b=")}`,
    );
    expect(await codeOf(twice)).toBe("signature_invalid");
  });

  it("a repeated label (two Signature-Input lines) → signature_invalid", async () => {
    const request = await signedPost({ label: "a" });
    const headers = new Headers(request.headers);
    headers.append("signature-input", request.headers.get("signature-input") ?? "");
    expect(await codeOf({ ...request, headers })).toBe("signature_invalid");
  });

  it("labels that differ between the fields → signature_invalid", async () => {
    const request = await signedPost({ label: "a" });
    const signature = (request.headers.get("signature") ?? "").replace(/^a=/, "b=");
    expect(await codeOf(withHeader(request, "signature", signature))).toBe("signature_invalid");
  });
});

describe("covered components", () => {
  it.each(["@method", "@authority", "@path", "@query", "content-digest"])("not covering %s → signature_invalid", async (missing) => {
    const request = await customPost(
      ALL.filter((c) => c !== missing),
      PARAMS,
    );
    expect(await codeOf(request)).toBe("signature_invalid");
  });

  it("@query is not required without a query string", async () => {
    const request = await customPost(
      ALL.filter((c) => c !== "@query"),
      PARAMS,
      URL_PLAIN,
    );
    expect(await codeOf(request)).toBe("ok");
  });

  it("a repeated component → signature_invalid", async () => {
    await expect(customPost([...ALL, "@method"], PARAMS)).rejects.toThrow();
    const good = await customPost(ALL, PARAMS);
    const input = (good.headers.get("signature-input") ?? "").replace('("@method"', '("@method" "@method"');
    expect(await codeOf(withHeader(good, "signature-input", input))).toBe("signature_invalid");
  });
});

describe("parameters", () => {
  it.each([
    ["created missing", { keyid: KEY.keyId, nonce: "n" }],
    ["created as a string", { created: String(NOW), keyid: KEY.keyId, nonce: "n" }],
    ["keyid missing", { created: NOW, nonce: "n" }],
    ["keyid as an integer", { created: NOW, keyid: 7, nonce: "n" }],
    ["alg other than hmac-sha256", { ...PARAMS, alg: "rsa-pss-sha512" }],
    ["nonce missing on a write", { created: NOW, keyid: KEY.keyId }],
    ["an empty nonce", { ...PARAMS, nonce: "" }],
    ["expires as a string", { ...PARAMS, expires: "later" }],
  ])("%s → signature_invalid", async (_, params) => {
    expect(await codeOf(await customPost(ALL, params))).toBe("signature_invalid");
  });

  it("nonce is optional when the policy does not require it", async () => {
    const request = await customPost(ALL, { created: NOW, keyid: KEY.keyId });
    const result = await verifyRequestSignature(request, policy({ requireNonce: false }));
    expect(result).toMatchObject({ ok: true, nonce: null });
  });
});

describe("clock", () => {
  it.each([
    ["301 s in the past", NOW - 301, "signature_expired"],
    ["301 s in the future", NOW + 301, "signature_expired"],
    ["exactly 300 s in the past", NOW - 300, "ok"],
    ["exactly 300 s in the future", NOW + 300, "ok"],
  ])("created %s → %s", async (_, created, code) => {
    expect(await codeOf(await signedPost({ created }))).toBe(code);
  });

  it("expires in the past → signature_expired", async () => {
    expect(await codeOf(await signedPost({ expires: NOW - 1 }))).toBe("signature_expired");
    expect(await codeOf(await signedPost({ expires: NOW }))).toBe("ok");
  });

  it("the window follows the injected clock", async () => {
    const request = await signedPost({ created: NOW - 1000 });
    expect(await codeOf(request, { nowSeconds: NOW - 1000 })).toBe("ok");
    expect(await codeOf(request, { windowSeconds: 1000 })).toBe("ok");
  });
});

describe("keys and tampering", () => {
  it("unknown key → unknown_key", async () => {
    expect(await codeOf(await signedPost(), { lookupKey: async () => null })).toBe("unknown_key");
  });

  it("wrong secret → signature_invalid", async () => {
    expect(await codeOf(await signedPost(), { lookupKey: async () => utf8("another-secret") })).toBe("signature_invalid");
  });

  it.each([
    ["the method", (r: SignableRequest) => ({ ...r, method: "PUT" })],
    ["the path", (r: SignableRequest) => ({ ...r, url: r.url.replace("/abc", "/abd") })],
    ["the query", (r: SignableRequest) => ({ ...r, url: r.url.replace("limit=5", "limit=6") })],
    ["the host", (r: SignableRequest) => ({ ...r, url: r.url.replace("api.example.com", "evil.example.com") })],
    ["the port", (r: SignableRequest) => ({ ...r, url: r.url.replace("api.example.com", "api.example.com:8443") })],
    ["the Content-Digest", (r: SignableRequest) => withHeader(r, "content-digest", `sha-256=:${"A".repeat(43)}=:`)],
  ])("tampering with %s → signature_invalid", async (_, tamper) => {
    expect(await codeOf(tamper(await signedPost()))).toBe("signature_invalid");
  });

  it("dropping the query → signature_invalid", async () => {
    const request = await signedPost();
    expect(await codeOf({ ...request, url: URL_WITH_QUERY.split("?")[0] ?? "" })).toBe("signature_invalid");
  });
});

describe("Content-Digest presence", () => {
  it("a body without Content-Digest → digest_mismatch", async () => {
    const headers = await signRequest({ method: "POST", url: URL_PLAIN }, KEY, { created: NOW });
    expect(await codeOf({ method: "POST", url: URL_PLAIN, headers })).toBe("digest_mismatch");
  });

  it("a Content-Digest without a supported algorithm → digest_mismatch", async () => {
    const request = await signedPost();
    expect(await codeOf(withHeader(request, "content-digest", "md5=:AAAA:"))).toBe("digest_mismatch");
    expect(await codeOf(withHeader(request, "content-digest", "sha-256=AAAA"))).toBe("digest_mismatch");
  });
});

describe("new key material", () => {
  it("secrets never start with '-', so a CLI flag value is never read as an option", async () => {
    const { newKeyMaterial } = await import("../src/auth/key-secrets.ts");
    for (let i = 0; i < 500; i++) {
      const { keyId, secret } = newKeyMaterial();
      expect(keyId).toMatch(/^pk_[A-Za-z0-9_-]{22}$/);
      expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    }
  });
});
