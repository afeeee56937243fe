// Signs bench requests with the service's own signer (src/auth/sign.ts). Bodies are streamed,
// so the Content-Digest is computed beforehand and covered like signRequest would cover it.
import { newNonce, signComponents, type SigningKey } from "../../src/wire/sign.ts";
import { requiredComponents } from "../../src/wire/verify.ts";

/** Headers for one signed request (RFC 9421 `hmac-sha256`, docs/api.md#signing-requests); a fresh nonce each time. */
export async function signedHeaders(
  method: string,
  url: string,
  key: SigningKey,
  extra: Record<string, string> = {},
  contentDigest?: string,
): Promise<Headers> {
  const headers = new Headers(extra);
  if (contentDigest !== undefined) headers.set("content-digest", contentDigest);
  const params = { created: Math.floor(Date.now() / 1000), keyid: key.keyId, nonce: newNonce() };
  const components = requiredComponents(new URL(url), contentDigest !== undefined, headers);
  return signComponents({ method, url, headers }, components, params, key);
}
