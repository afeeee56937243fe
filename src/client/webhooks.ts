// Verifying a webhook delivery on the receiving end (docs/changes.md "Webhooks"): its Standard
// Webhooks signature under the webhook's secret (or either of two during a rotation), and a
// timestamp within 5 minutes, before the body is trusted. Works with Node's, Fetch's or a plain
// object's headers.
import { verifyWebhookSignature } from "../wire/standard-webhooks.ts";
import type { WebhookDelivery } from "./types.ts";

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type WebhookRefusal = "missing_headers" | "stale_timestamp" | "no_matching_signature" | "not_json";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookRefusal;

  constructor(reason: WebhookRefusal) {
    super(`webhook delivery refused: ${reason.replace(/_/g, " ")}`);
    this.reason = reason;
  }
}

function header(headers: WebhookHeaders, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? (entry[0] ?? null) : (entry ?? null);
}

/**
 * The delivery's body, parsed, when its signature verifies; throws WebhookVerificationError
 * otherwise. `body` must be the exact bytes received (read the raw body, not a re-serialised one).
 */
export async function verifyWebhook(secret: string | readonly string[], headers: WebhookHeaders, body: string | Uint8Array): Promise<WebhookDelivery> {
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  const result = await verifyWebhookSignature(
    secret,
    { id: header(headers, "webhook-id"), timestamp: header(headers, "webhook-timestamp"), signature: header(headers, "webhook-signature") },
    text,
  );
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  try {
    return JSON.parse(text) as WebhookDelivery;
  } catch {
    throw new WebhookVerificationError("not_json");
  }
}
