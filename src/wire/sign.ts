// The client half of docs/api.md#signing-requests: signs a request with RFC 9421 `hmac-sha256` so that
// verifyRequestSignature accepts it. Used by tests, the CLI and the client; WebCrypto only.

import { toBase64Url, utf8 } from "./bytes.ts";
import { contentDigestHeader } from "./content-digest.ts";
import { hmacSha256Sign } from "./hmac.ts";
import { type SignableRequest, signatureBase } from "./signature-base.ts";
import type { BareItem, InnerList, Item } from "./structured-fields.ts";
import { serializeDictionary } from "./structured-fields-serialize.ts";
import { requiredComponents } from "./verify.ts";

export interface SignInput {
  method: string;
  url: string;
  headers?: Headers | Record<string, string>;
  body?: Uint8Array;
}

export interface SigningKey {
  keyId: string;
  /** The HMAC key; a string stands for its UTF-8 (for our secrets, ASCII) bytes. */
  secret: Uint8Array | string;
}

export interface SignOptions {
  /** Unix seconds; defaults to now. */
  created?: number;
  /** Defaults to 16 random bytes, base64url. */
  nonce?: string;
  label?: string;
  expires?: number;
}

/** Signature parameters in the order they are serialised; numbers become Integers. */
export type SignatureParameterValues = Record<string, string | number>;

export const DEFAULT_LABEL = "sig1";

// Fetch uppercases these methods whatever case they were given in, so the signature must too.
const NORMALISED_METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];

/**
 * The headers to send for a signed request: the given ones plus `Content-Digest` (sha-256,
 * when there is a body), `Signature-Input` and `Signature`, covering exactly the components
 * the service requires (RFC 9421 §3.1), among them every deciding field the request carries
 * (verify.ts DECIDING_FIELDS), so headers set after signing make the request fail.
 */
export async function signRequest(input: SignInput, key: SigningKey, options: SignOptions = {}): Promise<Headers> {
  const headers = new Headers(input.headers);
  const hasBody = input.body !== undefined;
  if (input.body !== undefined) headers.set("content-digest", await contentDigestHeader(input.body, "sha-256"));
  const upper = input.method.toUpperCase();
  const method = NORMALISED_METHODS.includes(upper) ? upper : input.method;
  const params: SignatureParameterValues = { created: options.created ?? Math.floor(Date.now() / 1000) };
  if (options.expires !== undefined) params.expires = options.expires;
  params.keyid = key.keyId;
  params.nonce = options.nonce ?? newNonce();
  const components = requiredComponents(new URL(input.url), hasBody, headers);
  return signComponents({ method, url: input.url, headers }, components, params, key, options.label);
}

/**
 * Signs exactly `components` with exactly `params` (RFC 9421 §3.1) and returns the request's
 * headers with `Signature-Input` and `Signature` set. No policy is applied, which makes it the
 * tool for building deliberately non-conforming requests in tests. Throws when a covered
 * component is missing from the request.
 */
export async function signComponents(
  request: SignableRequest,
  components: readonly string[],
  params: SignatureParameterValues,
  key: SigningKey,
  label: string = DEFAULT_LABEL,
): Promise<Headers> {
  const items = components.map((name): Item => ({ kind: "item", value: { type: "string", value: name }, params: new Map() }));
  const covered: InnerList = { kind: "inner-list", items, params: new Map() };
  for (const [name, value] of Object.entries(params)) {
    const item: BareItem = typeof value === "number" ? { type: "integer", value } : { type: "string", value };
    covered.params.set(name, item);
  }
  const base = signatureBase(request, covered);
  if (!base.ok) throw new Error(`cannot sign: ${base.error}`);
  const secret = typeof key.secret === "string" ? utf8(key.secret) : key.secret;
  const signature = await hmacSha256Sign(secret, base.value);
  const headers = new Headers(request.headers);
  headers.set("signature-input", serializeDictionary(new Map([[label, covered]])));
  headers.set(
    "signature",
    serializeDictionary(new Map([[label, { kind: "item", value: { type: "bytes", value: signature }, params: new Map() }]])),
  );
  return headers;
}

export function newNonce(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
}
