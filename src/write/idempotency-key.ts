// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header) and what makes
// two requests "the same request" for it. Pure: no bindings, no Hono.
import { toBase64Url } from "../wire/bytes.ts";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The key when it is 1–255 printable ASCII characters (compared as sent); else null. */
export function parseIdempotencyKey(value: string): string | null {
  return KEY_PATTERN.test(value) ? value : null;
}

export interface FingerprintedRequest {
  method: string;
  url: string;
  /** The Content-Digest field as sent: signed, and checked against the body as it streams. */
  contentDigest: string | null;
  ifMatch: string | null;
}

/**
 * SHA-256 over method, path + query, Content-Digest and If-Match: the parts that decide what a
 * write does. The body is covered through its digest, so it is never buffered here.
 */
export async function requestFingerprint(request: FingerprintedRequest): Promise<string> {
  const url = new URL(request.url);
  const canonical = JSON.stringify([request.method.toUpperCase(), url.pathname + url.search, request.contentDigest?.trim() ?? "", request.ifMatch?.trim() ?? ""]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return toBase64Url(new Uint8Array(digest));
}
