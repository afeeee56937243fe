// The worked signing example of docs/api.md ("Signing requests"), read from the page itself: the
// request it describes is signed by our signer, which must give the signature base and the
// headers printed there, and our verifier accepts it. Editing either the page or the code alone
// fails this test.
import page from "../docs/api.md?raw";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import { signatureBase } from "../src/wire/signature-base.ts";
import { parseDictionary, type InnerList } from "../src/wire/structured-fields.ts";
import { verifyRequestSignature } from "../src/wire/verify.ts";

/** The text of the "Signing requests" section of docs/api.md. */
function signingSection(): string {
  const start = page.indexOf("\n## Signing requests\n");
  const end = page.indexOf("\n## ", start + 1);
  expect(start, "docs/api.md has a 'Signing requests' section").toBeGreaterThan(0);
  return page.slice(start, end < 0 ? undefined : end);
}

function match(text: string, pattern: RegExp, what: string): RegExpExecArray {
  const found = pattern.exec(text);
  if (found === null) throw new Error(`the worked example: no ${what} (${pattern})`);
  return found;
}

interface WorkedExample {
  method: string;
  url: string;
  body: string;
  secret: string;
  /** The signature base as printed (lines joined with `\n`). */
  base: string;
  /** The request headers as printed, by lower-case name. */
  headers: Map<string, string>;
}

function workedExample(): WorkedExample {
  const section = signingSection();
  const [, method, path, host, body] = match(section, /Worked example — `(\w+) ([^`]+)` to `([^`]+)` with body `([^`]*)`/, "request line");
  const blocks = [...section.matchAll(/```\n([\s\S]*?)\n```/g)].map((m) => m[1] ?? "");
  const base = blocks.find((b) => b.includes('"@signature-params"'));
  const headerBlock = blocks.find((b) => b.startsWith("Content-Digest:") || b.includes("\nSignature:"));
  if (base === undefined || headerBlock === undefined) throw new Error("the worked example: missing the signature base or header block");
  const headers = new Map(
    headerBlock.split("\n").map((line) => {
      const colon = line.indexOf(": ");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 2)] as [string, string];
    }),
  );
  const [, secret] = match(section, /With the secret\s+`([^`]+)`/, "secret");
  return { method: method!, url: `https://${host}${path}`, body: body!, secret: secret!, base, headers };
}

describe("the worked signing example of docs/api.md", () => {
  it("is what our signer produces for the request it describes, and verifies", async () => {
    const example = workedExample();
    const signatureInput = example.headers.get("signature-input") ?? "";
    const parsed = parseDictionary(signatureInput);
    if (!parsed.ok) throw new Error(`the worked example's Signature-Input does not parse: ${parsed.error}`);
    const [label, member] = [...parsed.value][0] ?? [];
    if (member?.kind !== "inner-list") throw new Error("the worked example's Signature-Input has no inner list");
    const covered: InnerList = member;
    const param = (name: string) => covered.params.get(name)?.value;
    const created = param("created");
    const keyid = param("keyid");
    const nonce = param("nonce");
    if (typeof created !== "number" || typeof keyid !== "string" || typeof nonce !== "string") {
      throw new Error("the worked example's Signature-Input lacks created, keyid or nonce");
    }

    const body = new TextEncoder().encode(example.body);
    const headers = await signRequest({ method: example.method, url: example.url, body }, { keyId: keyid, secret: example.secret }, { created, nonce, label });
    expect(headers.get("content-digest")).toBe(example.headers.get("content-digest"));
    expect(headers.get("signature-input")).toBe(signatureInput);
    expect(headers.get("signature")).toBe(example.headers.get("signature"));
    expect(signatureBase({ method: example.method, url: example.url, headers }, covered)).toEqual({ ok: true, value: example.base });

    const result = await verifyRequestSignature(
      { method: example.method, url: example.url, headers },
      { nowSeconds: created, windowSeconds: 300, requireNonce: true, hasBody: true, lookupKey: async () => new TextEncoder().encode(example.secret) },
    );
    expect(result.ok).toBe(true);
  });
});
