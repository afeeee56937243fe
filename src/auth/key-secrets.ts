// API key secrets at rest: AES-256-GCM under the worker secret KEY_ENCRYPTION_KEY, with the
// key id as associated data, so a copy of D1 alone cannot sign requests. Used by the worker
// (to get the HMAC key) and by `npm run keys` (to store new keys); WebCrypto only.

import { fromBase64, toBase64, toBase64Url } from "../wire/bytes.ts";

export interface SealedSecret {
  iv: string;
  ciphertext: string;
}

const encoder = new TextEncoder();

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const bytes = fromBase64(text);
  if (!bytes) throw new Error("not base64");
  return new Uint8Array(bytes);
}

/** Whether text is a usable KEY_ENCRYPTION_KEY: 32 bytes, base64. */
export function isMasterKey(text: string): boolean {
  const bytes = fromBase64(text.trim());
  return bytes !== null && bytes.length === 32;
}

/** KEY_ENCRYPTION_KEY is unset or unusable: the server is not configured, the request is fine. */
export class MasterKeyError extends Error {
  override readonly name = "MasterKeyError";
  readonly missing: boolean;

  constructor(missing: boolean) {
    super(missing ? "KEY_ENCRYPTION_KEY is not set" : "KEY_ENCRYPTION_KEY is not 32 bytes of base64");
    this.missing = missing;
  }
}

// `unknown`: an unset worker secret arrives as undefined whatever the generated Env type says.
async function importMasterKey(masterKeyBase64: unknown): Promise<CryptoKey> {
  if (typeof masterKeyBase64 !== "string" || masterKeyBase64.trim() === "") throw new MasterKeyError(true);
  if (!isMasterKey(masterKeyBase64)) throw new MasterKeyError(false);
  const raw = decodeBase64(masterKeyBase64.trim());
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function sealSecret(masterKeyBase64: string, keyId: string, secret: string): Promise<SealedSecret> {
  const key = await importMasterKey(masterKeyBase64);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(keyId) },
    key,
    encoder.encode(secret),
  );
  return { iv: toBase64(iv), ciphertext: toBase64(new Uint8Array(ciphertext)) };
}

/** The HMAC key bytes (the secret's ASCII bytes, docs/api.md#signing-requests), or null when the record does not open. */
export async function openSecret(masterKeyBase64: string, keyId: string, sealed: SealedSecret): Promise<Uint8Array | null> {
  const key = await importMasterKey(masterKeyBase64);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: decodeBase64(sealed.iv), additionalData: encoder.encode(keyId) },
      key,
      decodeBase64(sealed.ciphertext),
    );
    return new Uint8Array(plain);
  } catch {
    return null;
  }
}

/** A new key: `pk_` + 16 random bytes, and a 32-byte secret, both base64url. */
export function newKeyMaterial(): { keyId: string; secret: string } {
  const keyId = "pk_" + toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
  // Prefixed like key ids: a bare base64url secret starts with "-" one time in 64, and then
  // `pubset login --secret <secret>`, as the start banner prints it, reads it as an option.
  const secret = "sk_" + toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { keyId, secret };
}

export function newMasterKey(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(32)));
}
