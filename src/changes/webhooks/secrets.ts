// Webhook signing secrets at rest: sealed with KEY_ENCRYPTION_KEY like API key secrets
// (src/auth/key-secrets.ts), bound to the webhook's id so a sealed secret cannot be moved to another.
import { sealSecret, type SealedSecret } from "../../auth/key-secrets.ts";

export function webhookSecretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
}

export function sealWebhookSecret(masterKey: string, webhookId: string, secret: string): Promise<SealedSecret> {
  return sealSecret(masterKey, webhookSecretContext(webhookId), secret);
}
