// Byte helpers shared by the signature and digest modules: base64 (RFC 4648) and a
// constant-time comparison, using only what workerd, Node >= 22 and browsers all provide.

/** RFC 4648 §4 base64, with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** RFC 4648 §5 base64url, without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** RFC 4648 §4 base64 to bytes; null when the text is not base64. Missing padding is accepted. */
export function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Compares two byte strings in time that depends only on their lengths (lengths are not
 * secret here: digests and MACs have fixed sizes).
 */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return bufferSource(new TextEncoder().encode(text));
}

/**
 * WebCrypto's typings (TS ≥ 5.7 DOM lib) want ArrayBuffer-backed views; every array here is
 * (nothing in this project allocates SharedArrayBuffer), so this only narrows the type.
 */
export function bufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}
