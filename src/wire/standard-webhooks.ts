// Standard Webhooks signatures (standardwebhooks.com, "Verifying webhooks"), shared by the
// server that signs deliveries and the client that verifies them. A secret is `whsec_` and the
// base64 of its key bytes; a signature is `v1,` and the base64 HMAC-SHA256 of
// `{webhook-id}.{webhook-timestamp}.{body}` under those bytes. `webhook-signature` holds one
// or more signatures separated by spaces (two while a rotated secret still signs).
import { fromBase64, toBase64 } from "./bytes.ts";
import { hmacSha256SignWith, hmacSha256SigningKey, hmacSha256Verify } from "./hmac.ts";

export const SECRET_PREFIX = "whsec_";
/** How far a delivery's timestamp may be from the receiver's clock, as the reference libraries allow. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** A new random secret: 32 key bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

/** The key bytes of a secret (with or without its prefix); null when it is not base64. */
export function secretKey(secret: string): Uint8Array | null {
  return fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
}

function signedContent(id: string, timestamp: number, body: string): string {
  return `${id}.${timestamp}.${body}`;
}

/** The `webhook-signature` value of a delivery: one signature per secret, space-separated. */
export type WebhookSigner = (id: string, timestamp: number, body: string) => Promise<string>;

/** A signer for `secrets` that imports each key once, however many deliveries it signs. */
export async function webhookSigner(secrets: readonly string[]): Promise<WebhookSigner> {
  const keys = await Promise.all(
    secrets.map((secret) => {
      const key = secretKey(secret);
      if (!key) throw new Error("a webhook secret must be base64 after its whsec_ prefix");
      return hmacSha256SigningKey(key);
    }),
  );
  return async (id, timestamp, body) => {
    const content = signedContent(id, timestamp, body);
    const signatures = await Promise.all(keys.map(async (key) => "v1," + toBase64(await hmacSha256SignWith(key, content))));
    return signatures.join(" ");
  };
}

export type WebhookVerification = { ok: true } | { ok: false; reason: "missing_headers" | "stale_timestamp" | "no_matching_signature" };

/**
 * Verifies a delivery against one or more secrets: its headers are present, its timestamp within
 * the tolerance of `nowSeconds`, and some `v1` signature matches some secret.
 */
export async function verifyWebhookSignature(
  secrets: string | readonly string[],
  headers: { id: string | null; timestamp: string | null; signature: string | null },
  body: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<WebhookVerification> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^[0-9]{1,12}$/.test(timestamp)) return { ok: false, reason: "missing_headers" };
  const at = Number(timestamp);
  if (Math.abs(nowSeconds - at) > TIMESTAMP_TOLERANCE_SECONDS) return { ok: false, reason: "stale_timestamp" };
  const content = signedContent(id, at, body);
  const candidates = signature
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => fromBase64(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array => bytes !== null);
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    const key = secretKey(secret);
    if (!key) continue;
    for (const candidate of candidates) if (await hmacSha256Verify(key, content, candidate)) return { ok: true };
  }
  return { ok: false, reason: "no_matching_signature" };
}
