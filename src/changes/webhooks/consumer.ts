// The WEBHOOKS queue's consumer (docs/storage-protocol.md "Webhook delivery"). A message holds one
// webhook's pending events; a batch holds at most 6 messages. A batch's webhooks share the
// invocation's connections (in-flight.ts): each webhook gets its own share, so one slow endpoint
// never holds up another, and sends its messages' events through that many requests at once,
// oldest first; a webhook alone in its batch keeps more in flight while its answers are quick.
// The delivery rows decide: a delivered or withheld event is skipped without sending. A failed attempt stops its message from starting more events: the
// message is retried after a growing delay, and the retry sends only what is still pending, with
// the same webhook-ids. Outcomes are recorded in D1 in groups, one write at a time per webhook,
// and a message is acknowledged only once all of its outcomes are in: a consumer that dies in
// between leaves it unacknowledged, so it is sent again. Before each attempt the URL is checked
// again and its host's addresses looked up (DOH_URL, shared within a batch for 10 s); a public
// event's dataset visibility is read again once its reading is 10 s old.
import { z } from "zod";
import { openSecret } from "../../auth/key-secrets.ts";
import { eventForWebhook } from "../../model/change-events.ts";
import { localhostAllowed } from "./url.ts";
import { checkDestination } from "./destination.ts";
import { DEFAULT_DOH_URL, dohResolver, oncePerName, type Resolver } from "./resolver.ts";
import { deliveryBody, FAILING_LIMIT_MS, retryDelaySeconds, sendAttempt, webhookMessageId, type SentAttempt } from "./deliver.ts";
import { inFlightBounds, inFlightWindow, keepWindow, lastWindow, overdueMs } from "./in-flight.ts";
import { readDatasetVisibility, readDeliveries, recordOutcomes, type Outcome, type PendingEvent, type WebhookRow } from "./store.ts";
import { webhookSigner, type WebhookSigner } from "../../wire/standard-webhooks.ts";
import { EVENTS_PER_MESSAGE, type DeliveryMessage } from "./drain.ts";
import { webhookSecretContext } from "./secrets.ts";

const Seq = z.number().int().positive();

/**
 * How old a dataset's visibility may be when a public-view event of it is sent. A webhook's
 * messages of a batch may take minutes (a slow endpoint: up to 10 s per attempt), so the
 * visibility read with them is read again once it is older than this: a dataset made private
 * stops its public events within about this long, as when each event was its own message.
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

/**
 * How long a batch's webhooks start new events. A consumer invocation has 15 minutes of wall
 * time, and a webhook's messages of a batch (up to 6 × 50 events, through as little as one
 * connection, each attempt up to 10 s) could take longer; after this, the events not started
 * wait for their message's next delivery, asked for at once.
 */
export const RUN_BUDGET_MS = 12 * 60 * 1000;

/**
 * One webhook's outcomes, written in groups: while one D1 batch is on its way, the outcomes that
 * come meanwhile wait and go together in the next, so a message's records cost a few round trips,
 * not one per event, and never hold up a send. `add` resolves once its outcome is written.
 */
function outcomeRecorder(db: D1Database, webhookId: string) {
  let waiting: Array<{ outcome: Outcome; done: () => void; failed: (error: unknown) => void }> = [];
  let writing = false;
  const pump = async () => {
    if (writing || waiting.length === 0) return;
    writing = true;
    const group = waiting;
    waiting = [];
    try {
      await recordOutcomes(db, webhookId, group.map((entry) => entry.outcome));
      for (const entry of group) entry.done();
    } catch (error: unknown) {
      for (const entry of group) entry.failed(error);
    } finally {
      writing = false;
      void pump();
    }
  };
  return (outcome: Outcome): Promise<void> => {
    const written = new Promise<void>((done, failed) => waiting.push({ outcome, done, failed }));
    written.catch(() => {});
    void pump();
    return written;
  };
}

interface MessageRun {
  message: Message<unknown>;
  seqs: number[];
  /** Its pending events not yet started, oldest first. */
  queue: PendingEvent[];
  /** Its outcomes' records on their way. */
  records: Promise<void>[];
  /** Set by its first failure (or 0 when the run ran out of time): the retry's delay; no more of its events start. */
  retryDelay: number | null;
  /** When its retry is due (ms): the next attempt of every event it leaves pending. */
  retryAt: number;
  disabled: boolean;
  sent: number;
}

/**
 * One webhook's messages of a batch, through its window of requests at once (from `bounds.share`
 * up to `bounds.ceiling`): the events of the first message first, each oldest first. Outcomes are
 * recorded as they come; each message is then acknowledged, or retried from its first failure.
 */
async function deliverWebhook(webhookId: string, messages: Message<unknown>[], bounds: { share: number; ceiling: number }, env: ConsumerBindings, options: ConsumerOptions, resolver: Resolver): Promise<void> {
  const started = Date.now();
  const runs: MessageRun[] = [];
  const owner = new Map<number, MessageRun>();
  for (const message of messages) {
    const parsed = DeliveryMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ event: "webhook_message_malformed", id: message.id }));
      message.ack();
      continue;
    }
    const run: MessageRun = { message, seqs: parsed.data.seqs, queue: [], records: [], retryDelay: null, retryAt: 0, disabled: false, sent: 0 };
    runs.push(run);
    // A seq in two messages of a batch (a sweep's resend beside the drain's) is the first one's.
    for (const seq of run.seqs) if (!owner.has(seq)) owner.set(seq, run);
  }
  if (runs.length === 0) return;
  const state = await readDeliveries(env.DB, webhookId, [...owner.keys()].sort((a, b) => a - b));
  // Gone (the webhook deleted), or waiting for its webhook to be enabled again.
  if (!state || !state.webhook.enabled) {
    for (const run of runs) run.message.ack();
    return;
  }
  const { webhook } = state;
  // Done rows (delivered, withheld, or gone with their webhook's events) are skipped: a retry
  // sends only what is still pending, and a duplicate message sends nothing twice.
  for (const delivery of state.events) if (delivery.state === "pending") owner.get(delivery.seq)?.queue.push(delivery);
  const clock = options.now ?? Date.now;
  const readAt = clock();
  const visibilities = new Map<string, { at: number; visibility: Promise<"public" | "private" | null> }>();
  const visibilityOf = (datasetId: string, read: "public" | "private" | null) => {
    const known = visibilities.get(datasetId) ?? { at: readAt, visibility: Promise.resolve(read) };
    if (clock() - known.at < VISIBILITY_MAX_AGE_MS) return known.visibility;
    const fresh = { at: clock(), visibility: readDatasetVisibility(env.DB, datasetId) };
    visibilities.set(datasetId, fresh);
    return fresh.visibility;
  };
  const record = outcomeRecorder(env.DB, webhookId);
  let signer: Promise<WebhookSigner> | null = null;
  let failingSince = webhook.failingSince;
  let disabled = false;
  /** An error that is no attempt's outcome (a secret that does not open): the run stops, and its messages are retried. */
  let broken: { error: unknown } | null = null;
  /** The next event to start: the first message's first, skipping messages stopped by a failure. */
  const runStarted = clock();
  const startable = (): boolean => !disabled && !broken && clock() - runStarted < RUN_BUDGET_MS && runs.some((run) => run.retryDelay === null && run.queue.length > 0);
  const next = (): { run: MessageRun; delivery: PendingEvent } | null => {
    if (!startable()) return null;
    for (const run of runs) {
      if (run.retryDelay !== null) continue;
      const delivery = run.queue.shift();
      if (delivery) return { run, delivery };
    }
    return null;
  };
  const attemptMs: number[] = [];
  const answerMs: number[] = [];
  /** Sends one event, or withholds it (null: no request made). */
  const attempt = async (run: MessageRun, delivery: PendingEvent): Promise<SentAttempt | null> => {
    const { seq } = delivery;
    const began = Date.now();
    const now = clock();
    const seen = eventForWebhook(delivery.event, { teamId: webhook.teamId, events: webhook.events, datasets: webhook.datasets });
    // Never to a reader who may not see it: a public-view event of a dataset no longer public is
    // withheld (its withdrawal follows it in the outbox).
    if (!seen || (seen.public && seen.type !== "dataset.withdrawn" && (await visibilityOf(delivery.event.datasetId, delivery.datasetVisibility)) !== "public")) {
      run.records.push(record({ kind: "withheld", seq, at: now }));
      return null;
    }
    const destination = await checkDestination(webhook.url, localhostAllowed(env.WEBHOOKS_ALLOW_LOCALHOST), resolver);
    const sent: SentAttempt = destination.ok
      ? await sendAttempt(destination.url, await (signer ??= signingSecrets(env, webhook, now).then(webhookSigner)), webhookMessageId(webhookId, seq), deliveryBody(seen), Math.floor(now / 1000), options.fetcher)
      : { outcome: { ok: false, status: null, body: null, error: destination.error }, answerMs: null };
    const { outcome } = sent;
    run.sent++;
    attemptMs.push(Date.now() - began);
    if (sent.answerMs !== null) answerMs.push(sent.answerMs);
    if (outcome.ok) {
      failingSince = null;
      run.records.push(record({ kind: "attempt", seq, ...outcome, at: now, nextAttempt: now, disable: null, deferred: [] }));
      return sent;
    }
    failingSince ??= now;
    const failingFor = now - failingSince;
    const disable = !disabled && failingFor >= FAILING_LIMIT_MS ? `failing since ${new Date(failingSince).toISOString()}: ${outcome.error ?? `answered ${outcome.status}`}` : null;
    if (disable !== null) {
      disabled = true;
      run.disabled = true;
    }
    // The message's first failure sets its retry; its events not started wait for it, so the
    // sweep does not send them ahead of it.
    if (run.retryDelay === null) {
      run.retryDelay = retryDelaySeconds(delivery.attempts + 1);
      run.retryAt = now + run.retryDelay * 1000;
    }
    const nextAttempt = run.retryAt;
    const deferred = run.queue.splice(0).map((later) => later.seq);
    run.records.push(record({ kind: "attempt", seq, ...outcome, at: now, nextAttempt, disable, deferred }));
    return sent;
  };
  const readMs = Date.now() - started;
  // Workers take the next event until none is left; after each answer the window says whether
  // one more starts (a quick answer) or this one stops (the window shrank below those running).
  // Alone in its batch, the webhook starts where its last run in this isolate left the window.
  const alone = bounds.ceiling > bounds.share;
  const window = inFlightWindow(bounds.share, bounds.ceiling, alone ? lastWindow(webhookId) : undefined);
  const startWindow = window.size;
  const workers: Promise<void>[] = [];
  let inFlight = 0;
  let widest = 0;
  const startWorker = () => {
    inFlight++;
    widest = Math.max(widest, inFlight);
    workers.push(work());
  };
  const work = async (): Promise<void> => {
    try {
      for (let job = next(); job; job = next()) {
        const sent = await attempt(job.run, job.delivery).catch((error: unknown) => {
          broken ??= { error };
          return null;
        });
        if (sent) window.answered(sent.answerMs);
        if (inFlight > window.size) return;
        while (inFlight < window.size && startable()) startWorker();
      }
    } finally {
      inFlight--;
    }
  };
  while (inFlight < window.size && startable()) startWorker();
  for (let i = 0; i < workers.length; i++) await workers[i];
  if (alone) keepWindow(webhookId, window);
  // Its outcomes so far still go in, so a retry does not send again what was delivered.
  const stopped = broken as { error: unknown } | null;
  if (stopped) {
    await Promise.allSettled(runs.flatMap((run) => run.records));
    throw stopped.error;
  }
  const sentMs = Date.now() - started;
  // Out of time: what is not started waits for its message's next delivery, asked for now.
  for (const run of runs) {
    if (run.queue.length === 0 || run.retryDelay !== null || disabled) continue;
    run.records.push(record({ kind: "deferred", seqs: run.queue.map((later) => later.seq), nextAttempt: clock() }));
    run.retryDelay = 0;
  }
  for (const run of runs) {
    // Acknowledged or retried only once every record of it is in: a consumer that dies first
    // leaves the message to be sent again, from what was not recorded delivered.
    try {
      await Promise.all(run.records);
    } catch (error: unknown) {
      console.error(JSON.stringify({ event: "webhook_delivery_failed", id: run.message.id, error: String(error) }));
      run.message.retry({ delaySeconds: 60 });
      continue;
    }
    if (run.disabled || disabled || run.retryDelay === null) run.message.ack();
    else run.message.retry({ delaySeconds: run.retryDelay });
  }
  const sent = runs.reduce((n, run) => n + run.sent, 0);
  const outcome = disabled ? "disabled" : runs.some((run) => run.retryDelay !== null) ? "retry" : "delivered";
  // Where a run's time went: its read, its sends (an attempt's median and longest), and the wait for its last records.
  const spread = (list: number[]) => {
    list.sort((a, b) => a - b);
    return { median: list[Math.floor(list.length / 2)] ?? 0, max: list[list.length - 1] ?? 0 };
  };
  // attemptMs: from the event's start to its outcome; answerMs: from the request to its answer's
  // headers; overdueMs: when the window counts an answer late (in-flight.ts).
  const overdue = window.times ? Math.round(overdueMs(window.times)) : null;
  if (sent > 0) console.log(JSON.stringify({ event: "webhook_message", at: new Date(started).toISOString(), webhookId, messages: runs.length, events: owner.size, sent, window: [startWindow, window.size], inFlight: widest, outcome, ms: Date.now() - started, readMs, sentMs, attemptMs: spread(attemptMs), answerMs: spread(answerMs), overdueMs: overdue }));
}

/** The webhook a message names, to keep one webhook's messages in turn; malformed ones stand alone. */
function webhookOf(message: Message<unknown>): string {
  const body = message.body as { webhookId?: unknown } | null;
  return typeof body?.webhookId === "string" ? body.webhookId : `message:${message.id}`;
}

export async function consumeWebhookBatch(batch: MessageBatch<unknown>, env: ConsumerBindings, options: ConsumerOptions = {}): Promise<void> {
  const resolver = oncePerName(dohResolver(env.DOH_URL || DEFAULT_DOH_URL));
  // Each webhook its own share of the connections, so one slow endpoint never holds up another.
  const byWebhook = new Map<string, Message<unknown>[]>();
  for (const message of batch.messages) {
    const key = webhookOf(message);
    byWebhook.set(key, [...(byWebhook.get(key) ?? []), message]);
  }
  const bounds = inFlightBounds(byWebhook.size);
  await Promise.all(
    [...byWebhook].map(([webhookId, messages], i) =>
      deliverWebhook(webhookId, messages, bounds[i] ?? { share: 1, ceiling: 1 }, env, options, resolver).catch((error: unknown) => {
        console.error(JSON.stringify({ event: "webhook_delivery_failed", webhookId, error: String(error) }));
        for (const message of messages) message.retry({ delaySeconds: 60 });
      }),
    ),
  );
}
