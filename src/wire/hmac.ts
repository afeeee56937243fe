// The `hmac-sha256` signature algorithm of RFC 9421 §3.3.3 over WebCrypto, which also gives
// the constant-time comparison verification needs.

import { utf8, bufferSource } from "./bytes.ts";

const HMAC_SHA256 = { name: "HMAC", hash: "SHA-256" } as const;

/** RFC 9421 §3.3.3: HMAC-SHA256 of the signature base's bytes. */
export async function hmacSha256Sign(key: Uint8Array, signatureBase: string): Promise<Uint8Array> {
  return hmacSha256SignWith(await hmacSha256SigningKey(key), signatureBase);
}

/** A signing key imported once, for a signer that signs many bases with one secret. */
export function hmacSha256SigningKey(key: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", bufferSource(key), HMAC_SHA256, false, ["sign"]);
}

export async function hmacSha256SignWith(cryptoKey: CryptoKey, signatureBase: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, utf8(signatureBase)));
}

/**
 * RFC 9421 §3.3.3 verification. `crypto.subtle.verify` compares in constant time. A key that
 * WebCrypto refuses (e.g. empty) verifies nothing.
 */
export async function hmacSha256Verify(key: Uint8Array, signatureBase: string, signature: Uint8Array): Promise<boolean> {
  let cryptoKey: CryptoKey;
  try {
    cryptoKey = await crypto.subtle.importKey("raw", bufferSource(key), HMAC_SHA256, false, ["verify"]);
  } catch {
    return false;
  }
  return crypto.subtle.verify("HMAC", cryptoKey, bufferSource(signature), utf8(signatureBase));
}
