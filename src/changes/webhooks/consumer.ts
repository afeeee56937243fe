// The WEBHOOKS queue's consumer (docs/storage-protocol.md "Webhook delivery"): a message holds one
// webhook's events in commit order, sent one at a time so its endpoint sees them in that order;
// different webhooks' messages of a batch (at most 6) run side by side, so one slow endpoint
// never holds up another, and one webhook's run in turn. The delivery rows decide: a delivered or withheld event is
// skipped without sending. The first failed attempt is recorded and ends the message's run: the
// queue retries the message after a growing delay, and the retry skips what was delivered, so it
// starts at the failed event. An attempt is recorded after it is made, so a consumer that dies in
// between leaves the message unacknowledged: sent again, with the same webhook-id. Before each
// attempt the URL is checked again and its host's addresses looked up (DOH_URL, shared within a batch
// for 10 s); a public event's dataset visibility is read again once its reading is 10 s old.
import { z } from "zod";
import { openSecret } from "../../auth/key-secrets.ts";
import { eventForWebhook } from "../../model/change-events.ts";
import { localhostAllowed } from "./url.ts";
import { checkDestination } from "./destination.ts";
import { DEFAULT_DOH_URL, dohResolver, oncePerName, type Resolver } from "./resolver.ts";
import { deliveryBody, FAILING_LIMIT_MS, retryDelaySeconds, sendAttempt, webhookMessageId } from "./deliver.ts";
import { readDatasetVisibility, readDeliveries, recordAttempt, withholdDelivery, type WebhookRow } from "./store.ts";
import { EVENTS_PER_MESSAGE, type DeliveryMessage } from "./drain.ts";
import { webhookSecretContext } from "./secrets.ts";

const Seq = z.number().int().positive();

/**
 * How old a dataset's visibility may be when a public-view event of it is sent. A message sends
 * its events one at a time, for up to 50 × 10 s, so the visibility read with the message is read
 * again once it is older than this: a dataset made private stops its public events within about
 * this long, as when each event was its own message.
 */
const VISIBILITY_MAX_AGE_MS = 10_000;
/** A message as the drain sends it; one of a single `seq` is one queued before messages held several. */
const DeliveryMessageSchema = z.union([
  z.object({ webhookId: z.string().min(1), seqs: z.array(Seq).min(1).max(EVENTS_PER_MESSAGE) }),
  z.object({ webhookId: z.string().min(1), seq: Seq }).transform(({ webhookId, seq }) => ({ webhookId, seqs: [seq] })),
]);

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

/** The message's events to its endpoint, oldest first, until the first failure. */
async function deliverMessage(message: Message<unknown>, env: ConsumerBindings, options: ConsumerOptions, resolver: Resolver): Promise<void> {
  const parsed = DeliveryMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    console.error(JSON.stringify({ event: "webhook_message_malformed", id: message.id }));
    message.ack();
    return;
  }
  const { webhookId, seqs }: DeliveryMessage = parsed.data;
  const state = await readDeliveries(env.DB, webhookId, [...new Set(seqs)].sort((a, b) => a - b));
  const clock = options.now ?? Date.now;
  const readAt = clock();
  const visibilities = new Map<string, { at: number; visibility: "public" | "private" | null }>();
  const visibilityOf = async (datasetId: string, read: "public" | "private" | null) => {
    const known = visibilities.get(datasetId) ?? { at: readAt, visibility: read };
    if (clock() - known.at < VISIBILITY_MAX_AGE_MS) return known.visibility;
    const fresh = { at: clock(), visibility: await readDatasetVisibility(env.DB, datasetId) };
    visibilities.set(datasetId, fresh);
    return fresh.visibility;
  };
  // Gone (the webhook deleted), or waiting for its webhook to be enabled again.
  if (!state || !state.webhook.enabled) {
    message.ack();
    return;
  }
  const { webhook } = state;
  // Done rows (delivered, withheld, or gone with their webhook's events) are skipped: a retry
  // starts at the failed event, and a duplicate message sends nothing twice.
  const pending = state.events.filter((e) => e.state === "pending");
  let failingSince = webhook.failingSince;
  let secrets: string[] | null = null;
  // A success's record is written while the next event is sent (its fetch does not wait for
  // D1), but the records go one after another, and a failure's after them all. The message is
  // acknowledged only once every record is in, so a consumer that dies first sends those events
  // again (at least once), and a retry skips only what was recorded delivered.
  let recording: Promise<void> = Promise.resolve();
  const record = (write: () => Promise<void>) => {
    recording = recording.then(write);
    recording.catch(() => {});
  };
  const started = Date.now();
  let sent = 0;
  const done = (outcome: string) => console.log(JSON.stringify({ event: "webhook_message", webhookId, events: seqs.length, sent, outcome, ms: Date.now() - started }));
  for (const [i, delivery] of pending.entries()) {
    const { seq } = delivery;
    const now = options.now?.() ?? Date.now();
    const seen = eventForWebhook(delivery.event, { teamId: webhook.teamId, events: webhook.events, datasets: webhook.datasets });
    // Never to a reader who may not see it: a public-view event of a dataset no longer public is
    // withheld (its withdrawal follows it in the outbox).
    if (!seen || (seen.public && seen.type !== "dataset.withdrawn" && (await visibilityOf(delivery.event.datasetId, delivery.datasetVisibility)) !== "public")) {
      record(() => withholdDelivery(env.DB, webhookId, seq, now));
      continue;
    }
    const destination = await checkDestination(webhook.url, localhostAllowed(env.WEBHOOKS_ALLOW_LOCALHOST), resolver);
    if (destination.ok) secrets ??= await signingSecrets(env, webhook, now);
    const outcome =
      destination.ok && secrets
        ? await sendAttempt(destination.url, secrets, webhookMessageId(webhookId, seq), deliveryBody(seen), Math.floor(now / 1000), options.fetcher)
        : { ok: false, status: null, body: null, error: destination.ok ? null : destination.error };
    sent++;
    const attempts = delivery.attempts + 1;
    if (outcome.ok) {
      failingSince = null;
      record(() => recordAttempt(env.DB, { webhookId, seq, ok: true, status: outcome.status, body: outcome.body, error: null, now, nextAttempt: now, disable: null }));
      continue;
    }
    const failingFor = now - (failingSince ?? now);
    const disable = failingFor >= FAILING_LIMIT_MS ? `failing since ${new Date(failingSince ?? now).toISOString()}: ${outcome.error ?? `answered ${outcome.status}`}` : null;
    const delay = retryDelaySeconds(attempts);
    const deferred = pending.slice(i + 1).map((later) => later.seq);
    record(() => recordAttempt(env.DB, { webhookId, seq, ok: false, status: outcome.status, body: outcome.body, error: outcome.error, now, nextAttempt: now + delay * 1000, disable, deferred }));
    await recording;
    done(disable !== null ? "disabled" : "retry");
    if (disable !== null) message.ack();
    else message.retry({ delaySeconds: delay });
    return;
  }
  await recording;
  if (sent > 0) done("delivered");
  message.ack();
}

/** The webhook a message names, to keep one webhook's messages in turn; malformed ones stand alone. */
function webhookOf(message: Message<unknown>): string {
  const body = message.body as { webhookId?: unknown } | null;
  return typeof body?.webhookId === "string" ? body.webhookId : `message:${message.id}`;
}

export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: ConsumerBindings, options: ConsumerOptions = {}): Promise<void> {
  const resolver = oncePerName(dohResolver(env.DOH_URL || DEFAULT_DOH_URL));
  // Different webhooks' messages run side by side, so one slow endpoint never holds up another;
  // one webhook's messages run one after another, so its endpoint has one request at a time and
  // sees a batch's events in commit order.
  const byWebhook = new Map<string, Message<unknown>[]>();
  for (const message of batch.messages) {
    const key = webhookOf(message);
    byWebhook.set(key, [...(byWebhook.get(key) ?? []), message]);
  }
  await Promise.all(
    [...byWebhook.values()].map(async (messages) => {
      for (const message of messages) {
        await deliverMessage(message, env, options, resolver).catch((error: unknown) => {
          console.error(JSON.stringify({ event: "webhook_delivery_failed", id: message.id, error: String(error) }));
          message.retry({ delaySeconds: 60 });
        });
      }
    }),
  );
}
