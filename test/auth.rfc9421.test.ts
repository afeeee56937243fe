// Conformance with RFC 9421 Appendix B.2.5 (hmac-sha256) and the §2.2 derived-component examples.
import { describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "../src/wire/bytes.ts";
import { hmacSha256Sign, hmacSha256Verify } from "../src/wire/hmac.ts";
import { componentValue, signatureBase } from "../src/wire/signature-base.ts";
import { serializeDictionary } from "../src/wire/structured-fields-serialize.ts";
import { type InnerList, parseDictionary } from "../src/wire/structured-fields.ts";
import { verifyRequestSignature } from "../src/wire/verify.ts";
import { B_2_5, DERIVED_COMPONENT_EXAMPLES, SHARED_SECRET_BASE64, TEST_REQUEST } from "./fixtures/rfc9421/appendix-b.ts";

function testRequest(extra: [string, string][] = []) {
  return { method: TEST_REQUEST.method, url: TEST_REQUEST.url, headers: new Headers([...TEST_REQUEST.headers, ...extra]) };
}

function sharedSecret(): Uint8Array {
  const key = fromBase64(SHARED_SECRET_BASE64);
  if (key === null) throw new Error("fixture secret is not base64");
  return key;
}

function coveredOf(signatureInput: string, label: string): InnerList {
  const parsed = parseDictionary(signatureInput);
  if (!parsed.ok) throw new Error(parsed.error);
  const member = parsed.value.get(label);
  if (member?.kind !== "inner-list") throw new Error("not an inner list");
  return member;
}

function signatureOf(signature: string, label: string): Uint8Array {
  const parsed = parseDictionary(signature);
  const member = parsed.ok ? parsed.value.get(label) : undefined;
  if (member?.kind !== "item" || member.value.type !== "bytes") throw new Error("not a byte sequence");
  return member.value.value;
}

describe("RFC 9421 Appendix B.2.5, hmac-sha256", () => {
  it("the B.1.5 shared secret decodes to 64 bytes", () => {
    expect(sharedSecret().length).toBe(64);
  });

  it("builds the signature base byte for byte", () => {
    const base = signatureBase(testRequest(), coveredOf(B_2_5.signatureInput, B_2_5.label));
    expect(base).toEqual({ ok: true, value: B_2_5.signatureBase });
  });

  it("serialises the parsed Signature-Input back to the published text", () => {
    const parsed = parseDictionary(B_2_5.signatureInput);
    expect(parsed.ok && serializeDictionary(parsed.value)).toBe(B_2_5.signatureInput);
  });

  it("computes the published signature", async () => {
    const signature = await hmacSha256Sign(sharedSecret(), B_2_5.signatureBase);
    expect(toBase64(signature)).toBe(B_2_5.signatureBase64);
    expect(`${B_2_5.label}=:${toBase64(signature)}:`).toBe(B_2_5.signature);
  });

  it("verifies the published signature, and rejects it with one bit flipped", async () => {
    const request = testRequest([
      ["Signature-Input", B_2_5.signatureInput],
      ["Signature", B_2_5.signature],
    ]);
    const base = signatureBase(request, coveredOf(request.headers.get("signature-input") ?? "", B_2_5.label));
    if (!base.ok) throw new Error(base.error);
    const signature = signatureOf(request.headers.get("signature") ?? "", B_2_5.label);
    expect(await hmacSha256Verify(sharedSecret(), base.value, signature)).toBe(true);

    const flipped = signature.slice();
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(await hmacSha256Verify(sharedSecret(), base.value, flipped)).toBe(false);
    expect(await hmacSha256Verify(sharedSecret(), base.value.replace("example.com", "example.org"), signature)).toBe(false);
  });

  it("is refused by the service policy, which also requires @method and @path", async () => {
    const request = testRequest([
      ["Signature-Input", B_2_5.signatureInput],
      ["Signature", B_2_5.signature],
    ]);
    const result = await verifyRequestSignature(request, {
      nowSeconds: B_2_5.created,
      windowSeconds: 300,
      requireNonce: false,
      hasBody: false,
      lookupKey: async (keyId) => (keyId === B_2_5.keyId ? sharedSecret() : null),
    });
    expect(result).toMatchObject({ ok: false, code: "signature_invalid" });
  });
});

describe("RFC 9421 §2.2 derived components", () => {
  for (const example of DERIVED_COMPONENT_EXAMPLES) {
    it(`${example.section} ${example.name} of ${example.method} ${example.url}`, () => {
      const request = { method: example.method, url: example.url, headers: new Headers() };
      expect(componentValue(request, example.name, new URL(example.url))).toEqual({ ok: true, value: example.value });
    });
  }

  it("@authority is lowercase without a default port, and keeps any other port", () => {
    const value = (url: string) => componentValue({ method: "GET", url, headers: new Headers() }, "@authority", new URL(url));
    expect(value("https://WWW.Example.COM:443/x")).toEqual({ ok: true, value: "www.example.com" });
    expect(value("http://example.com:80/x")).toEqual({ ok: true, value: "example.com" });
    expect(value("https://example.com:8443/x")).toEqual({ ok: true, value: "example.com:8443" });
  });

  it("@path of an empty path is /", () => {
    const url = "https://example.com";
    expect(componentValue({ method: "GET", url, headers: new Headers() }, "@path", new URL(url))).toEqual({ ok: true, value: "/" });
  });
});

describe("RFC 9421 §2.1 HTTP fields and §2.5 failures", () => {
  const url = "https://example.com/a";
  const covered = (...names: string[]): InnerList => ({
    kind: "inner-list",
    items: names.map((name) => ({ kind: "item", value: { type: "string", value: name }, params: new Map() })),
    params: new Map([["created", { type: "integer", value: 1 }]]),
  });

  it("joins repeated fields with ', ' and trims values", () => {
    const headers = new Headers();
    headers.append("X-Example", "  one  ");
    headers.append("x-example", "two");
    expect(signatureBase({ method: "GET", url, headers }, covered("x-example"))).toEqual({
      ok: true,
      value: '"x-example": one, two\n"@signature-params": ("x-example");created=1',
    });
  });

  it.each([
    ["a missing field", covered("x-missing")],
    ["a repeated component", covered("@method", "@method")],
    ["an upper-case component name", covered("Date")],
    ["an unknown derived component", covered("@status")],
    ["@signature-params itself", covered("@signature-params")],
    ["an invalid field name", covered("bad name")],
  ])("fails on %s", (_, list) => {
    const headers = new Headers({ date: "x" });
    expect(signatureBase({ method: "GET", url, headers }, list).ok).toBe(false);
  });

  it("fails on a component with parameters, which are not supported", () => {
    const list = covered("@query-param");
    const first = list.items[0];
    if (first) first.params.set("name", { type: "string", value: "a" });
    expect(signatureBase({ method: "GET", url: `${url}?a=1`, headers: new Headers() }, list).ok).toBe(false);
  });
});
