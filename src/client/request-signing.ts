// Signs one attempt of a request (RFC 9421, docs/api.md#signing-requests) when the body is a stream: the
// Content-Digest is known in advance, so the headers are signed without holding the body.
import { newNonce, signComponents, type SigningKey } from "../wire/sign.ts";
import { requiredComponents } from "../wire/verify.ts";

export type { SigningKey };

/**
 * The headers with `Signature-Input` and `Signature` added, covering exactly the components
 * the service requires (`content-digest` when there is a body, which `headers` must already
 * carry, and every field that decides the write, such as `content-type` and `upload-offset`,
 * so those must be set before signing). Every call makes a fresh `created` and `nonce`, so a retried request is a new one.
 */
export function signedHeaders(
  method: string,
  url: string,
  headers: Headers,
  key: SigningKey,
  hasBody: boolean,
  nowMs: number = Date.now(),
): Promise<Headers> {
  if (hasBody && !headers.has("content-digest")) throw new Error("a request with a body needs Content-Digest before signing");
  const params = { created: Math.floor(nowMs / 1000), keyid: key.keyId, nonce: newNonce() };
  return signComponents({ method, url, headers }, requiredComponents(new URL(url), hasBody, headers), params, key);
}
