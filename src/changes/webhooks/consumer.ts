// The WEBHOOKS queue's consumer (docs/storage-protocol.md "Webhook delivery"): one attempt per
// message, all messages of a batch at once so one slow endpoint never holds up another. The
// delivery row decides: a delivered or withheld one is acknowledged without sending; a failed
// attempt is recorded, then retried by the queue after a growing delay, until its endpoint has
// failed for 3 days and is disabled. The attempt is recorded after it is made, so a consumer
// that dies in between leaves the message unacknowledged: sent again, with the same webhook-id.
// Before each attempt the URL is checked again and its host's addresses looked up (DOH_URL).
import { z } from "zod";
import { openSecret } from "../../auth/key-secrets.ts";
import { eventForWebhook } from "../../model/change-events.ts";
import { localhostAllowed } from "./url.ts";
import { checkDestination } from "./destination.ts";
import { DEFAULT_DOH_URL, dohResolver, oncePerName, type Resolver } from "./resolver.ts";
import { deliveryBody, FAILING_LIMIT_MS, retryDelaySeconds, sendAttempt, webhookMessageId } from "./deliver.ts";
import { readDelivery, recordAttempt, withholdDelivery, type WebhookRow } from "./store.ts";
import { webhookSecretContext } from "./secrets.ts";

const DeliveryMessageSchema = z.object({ webhookId: z.string().min(1), seq: z.number().int().positive() });

export interface ConsumerBindings {
  DB: D1Database;
  KEY_ENCRYPTION_KEY: string;
  WEBHOOKS_ALLOW_LOCALHOST?: string;
  /** The DNS-over-HTTPS server (RFC 8484) that tells a webhook host's addresses. */
  DOH_URL?: string;
}

export interface ConsumerOptions {
  now?: () => number;
  fetcher?: typeof fetch;
}

/** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
async function signingSecrets(env: ConsumerBindings, webhook: WebhookRow, now: number): Promise<string[]> {
  const open = async (sealed: WebhookRow["secret"]) => {
    const bytes = await openSecret(env.KEY_ENCRYPTION_KEY, webhookSecretContext(webhook.id), sealed);
    if (!bytes) throw new Error(`webhook ${webhook.id}: its secret does not open under KEY_ENCRYPTION_KEY`);
    return new TextDecoder().decode(bytes);
  };
  const secrets = [await open(webhook.secret)];
  if (webhook.previousSecret && webhook.previousUntil !== null && webhook.previousUntil > now) secrets.push(await open(webhook.previousSecret));
  return secrets;
}

async function deliverOne(message: Message<unknown>, env: ConsumerBindings, options: ConsumerOptions, resolver: Resolver): Promise<void> {
  const parsed = DeliveryMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    console.error(JSON.stringify({ event: "webhook_message_malformed", id: message.id }));
    message.ack();
    return;
  }
  const { webhookId, seq } = parsed.data;
  const now = options.now?.() ?? Date.now();
  const delivery = await readDelivery(env.DB, webhookId, seq);
  // Gone (the webhook deleted), done, or waiting for its webhook to be enabled again.
  if (!delivery || delivery.state !== "pending" || !delivery.webhook.enabled) {
    message.ack();
    return;
  }
  const { webhook } = delivery;
  const seen = eventForWebhook(delivery.event, { teamId: webhook.teamId, events: webhook.events, datasets: webhook.datasets });
  // Never to a reader who may not see it: a public-view event of a dataset no longer public is
  // withheld (its withdrawal follows it in the outbox).
  if (!seen || (seen.public && seen.type !== "dataset.withdrawn" && delivery.datasetVisibility !== "public")) {
    await withholdDelivery(env.DB, webhookId, seq, now);
    message.ack();
    return;
  }
  const destination = await checkDestination(webhook.url, localhostAllowed(env.WEBHOOKS_ALLOW_LOCALHOST), resolver);
  const outcome = destination.ok
    ? await sendAttempt(destination.url, await signingSecrets(env, webhook, now), webhookMessageId(webhookId, seq), deliveryBody(seen), Math.floor(now / 1000), options.fetcher)
    : { ok: false, status: null, body: null, error: destination.error };
  const attempts = delivery.attempts + 1;
  const failingFor = now - (webhook.failingSince ?? now);
  const disable = !outcome.ok && failingFor >= FAILING_LIMIT_MS ? `failing since ${new Date(webhook.failingSince ?? now).toISOString()}: ${outcome.error ?? `answered ${outcome.status}`}` : null;
  const delay = retryDelaySeconds(attempts);
  await recordAttempt(env.DB, { webhookId, seq, ok: outcome.ok, status: outcome.status, body: outcome.body, error: outcome.error, now, nextAttempt: now + delay * 1000, disable });
  if (outcome.ok || disable !== null) message.ack();
  else message.retry({ delaySeconds: delay });
}

export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: ConsumerBindings, options: ConsumerOptions = {}): Promise<void> {
  const resolver = oncePerName(dohResolver(env.DOH_URL || DEFAULT_DOH_URL));
  await Promise.all(
    batch.messages.map((message) =>
      deliverOne(message, env, options, resolver).catch((error: unknown) => {
        console.error(JSON.stringify({ event: "webhook_delivery_failed", id: message.id, error: String(error) }));
        message.retry({ delaySeconds: 60 });
      }),
    ),
  );
}
