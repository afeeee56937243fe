// Checks a request's RFC 9421 HTTP message signature against the service policy (docs/api.md#signing-requests):
// one `hmac-sha256` signature covering the required components, within the clock window.
// The caller then checks the body against the returned digest and records the nonce.

import { type ParsedDigest, parseContentDigest } from "./content-digest.ts";
import { hmacSha256Verify } from "./hmac.ts";
import { type SignableRequest, signatureBase } from "./signature-base.ts";
import { type InnerList, type Parameters, parseDictionary } from "./structured-fields.ts";

export type VerifyErrorCode =
  | "signature_required"
  | "signature_invalid"
  | "signature_expired"
  | "unknown_key"
  | "digest_mismatch";

/** The one place a failure code gets its default human wording. */
export const VERIFY_ERROR_DETAILS: Record<VerifyErrorCode, string> = {
  signature_required: "This request must be signed with Signature-Input and Signature (RFC 9421).",
  signature_invalid: "The request signature is malformed, incomplete or does not verify.",
  signature_expired: "The signature was created outside the allowed clock window, or has expired.",
  unknown_key: "The signature's keyid is unknown or revoked.",
  digest_mismatch: "Content-Digest is missing or does not match the request body.",
};

export interface VerifyPolicy {
  nowSeconds: number;
  windowSeconds: number;
  requireNonce: boolean;
  hasBody: boolean;
  /** The HMAC key bytes for a key id, or null when the key is unknown or revoked. */
  lookupKey(keyId: string): Promise<Uint8Array | null>;
}

export type VerifyResult =
  | {
      ok: true;
      keyId: string;
      nonce: string | null;
      created: number;
      expires: number | null;
      /** The Content-Digest to check the body against; null when the policy says no body. */
      digest: ParsedDigest | null;
    }
  | { ok: false; code: VerifyErrorCode; detail: string; /** A required component the signature left out. */ component?: string };

type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export const SIGNATURE_ALGORITHM = "hmac-sha256";
const MAX_NONCE_LENGTH = 256;

/**
 * Fields that decide what a write does: how the body is read (`content-type`, whose multipart
 * boundary splits it), its precondition, its idempotency, and where a resumable upload stands.
 * Whenever a request carries one, its signature must cover it (RFC 9421 §7.2.1, insufficient
 * coverage): otherwise `Upload-Complete: ?0` could be turned into `?1` on the way, or a stale
 * `If-Match` dropped.
 */
export const DECIDING_FIELDS = ["content-type", "if-match", "idempotency-key", "upload-complete", "upload-offset", "upload-length"] as const;

/** The components every signature must cover (docs/api.md#signing-requests); the signer covers exactly these. */
export function requiredComponents(url: URL, hasBody: boolean, headers: Headers): string[] {
  const required = ["@method", "@authority", "@path"];
  if (url.search !== "") required.push("@query");
  if (hasBody) required.push("content-digest");
  for (const field of DECIDING_FIELDS) if (headers.has(field)) required.push(field);
  return required;
}

/** RFC 9421 §3.2 verification, narrowed by the policy of docs/api.md#signing-requests. Never throws on bad input. */
export async function verifyRequestSignature(request: SignableRequest, policy: VerifyPolicy): Promise<VerifyResult> {
  const inputField = request.headers.get("signature-input");
  const signatureField = request.headers.get("signature");
  if (inputField === null && signatureField === null) return fail("signature_required");
  if (inputField === null || signatureField === null) {
    return fail("signature_invalid", "Signature and Signature-Input must be sent together");
  }
  const fields = readSignatureFields(inputField, signatureField);
  if (!fields.ok) return fail("signature_invalid", fields.error);
  const { covered, signature } = fields.value;
  const params = readParameters(covered.params, policy.requireNonce);
  if (!params.ok) return fail("signature_invalid", params.error);

  let digest: ParsedDigest | null = null;
  if (policy.hasBody) {
    const field = request.headers.get("content-digest");
    if (field === null) return fail("digest_mismatch", "a request with a body must send Content-Digest");
    const parsed = parseContentDigest(field);
    if (!parsed.ok) return fail("digest_mismatch", parsed.error);
    digest = parsed.value;
  }

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return fail("signature_invalid", "request URL is not absolute");
  }
  const coveredNames = new Set(covered.items.map((item) => (item.value.type === "string" ? item.value.value : "")));
  for (const name of requiredComponents(url, policy.hasBody, request.headers)) {
    if (coveredNames.has(name)) continue;
    const why = name.startsWith("@") || name === "content-digest" ? "" : `, which this request carries: it decides what the request does`;
    return fail("signature_invalid", `the signature must cover "${name}"${why}`, name);
  }
  const base = signatureBase(request, covered);
  if (!base.ok) return fail("signature_invalid", base.error);

  const { created, expires, keyId, nonce } = params.value;
  if (Math.abs(policy.nowSeconds - created) > policy.windowSeconds) {
    return fail("signature_expired", `created must be within ${policy.windowSeconds} s of the server's clock`);
  }
  if (expires !== null && policy.nowSeconds > expires) return fail("signature_expired", "the signature has expired");

  const key = await policy.lookupKey(keyId);
  if (key === null) return fail("unknown_key");
  if (!(await hmacSha256Verify(key, base.value, signature))) {
    // The two usual causes: another secret, or a request changed on its way (a proxy's Host, a
    // rewritten path): what the API received is named, to compare with what was signed.
    return fail(
      "signature_invalid",
      `the signature does not verify: check that it was made with this key's secret, over the request as the API received it (${request.method} ${url.host}${url.pathname}${url.search})`,
    );
  }
  return { ok: true, keyId, nonce, created, expires, digest };
}

function fail(code: VerifyErrorCode, detail: string = VERIFY_ERROR_DETAILS[code], component?: string): VerifyResult {
  return component === undefined ? { ok: false, code, detail } : { ok: false, code, detail, component };
}

/** RFC 9421 §4.1–§4.2, restricted to exactly one signature whose label appears in both fields. */
function readSignatureFields(
  inputField: string,
  signatureField: string,
): Checked<{ label: string; covered: InnerList; signature: Uint8Array }> {
  const inputs = parseDictionary(inputField);
  if (!inputs.ok) return { ok: false, error: `malformed Signature-Input: ${inputs.error}` };
  const signatures = parseDictionary(signatureField);
  if (!signatures.ok) return { ok: false, error: `malformed Signature: ${signatures.error}` };
  if (inputs.value.size !== 1 || signatures.value.size !== 1) {
    return { ok: false, error: "exactly one signature is accepted" };
  }
  const [label, covered] = [...inputs.value][0] ?? [];
  const signature = label === undefined ? undefined : signatures.value.get(label);
  if (label === undefined || covered === undefined || signature === undefined) {
    return { ok: false, error: "Signature and Signature-Input use different labels" };
  }
  if (covered.kind !== "inner-list") return { ok: false, error: "Signature-Input member must be an inner list" };
  if (signature.kind !== "item" || signature.value.type !== "bytes") {
    return { ok: false, error: "Signature member must be a byte sequence" };
  }
  return { ok: true, value: { label, covered, signature: signature.value.value } };
}

interface SignatureParameters {
  created: number;
  expires: number | null;
  keyId: string;
  nonce: string | null;
}

/** RFC 9421 §2.3 signature parameters, with the requirements of docs/api.md#signing-requests on each. */
function readParameters(params: Parameters, requireNonce: boolean): Checked<SignatureParameters> {
  const created = params.get("created");
  if (created?.type !== "integer") return { ok: false, error: "created must be present as an integer" };
  const keyId = params.get("keyid");
  if (keyId?.type !== "string") return { ok: false, error: "keyid must be present as a string" };
  const alg = params.get("alg");
  if (alg !== undefined && !(alg.type === "string" && alg.value === SIGNATURE_ALGORITHM)) {
    return { ok: false, error: `alg, when present, must be "${SIGNATURE_ALGORITHM}"` };
  }
  let expires: number | null = null;
  const expiresItem = params.get("expires");
  if (expiresItem !== undefined) {
    if (expiresItem.type !== "integer") return { ok: false, error: "expires must be an integer" };
    expires = expiresItem.value;
  }
  let nonce: string | null = null;
  const nonceItem = params.get("nonce");
  if (nonceItem !== undefined) {
    if (nonceItem.type !== "string" || nonceItem.value === "" || nonceItem.value.length > MAX_NONCE_LENGTH) {
      return { ok: false, error: `nonce must be a string of 1 to ${MAX_NONCE_LENGTH} characters` };
    }
    nonce = nonceItem.value;
  } else if (requireNonce) return { ok: false, error: "nonce is required on writes" };
  return { ok: true, value: { created: created.value, expires, keyId: keyId.value, nonce } };
}
