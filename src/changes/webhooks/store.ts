// Webhooks' D1 access (docs/changes.md "Webhooks", docs/storage-protocol.md "Webhook delivery"):
// the team's endpoints, the drain's claim of events into delivery rows, and the consumer's record
// of each attempt. Delivery rows are the record; queue messages only ask for an attempt.
import type { EventType, StoredEvent } from "../../model/change-events.ts";
import type { SealedSecret } from "../../auth/key-secrets.ts";

export interface WebhookRow {
  id: string;
  teamId: string;
  url: string;
  events: EventType[];
  datasets: string[];
  secret: SealedSecret;
  previousSecret: SealedSecret | null;
  previousUntil: number | null;
  created: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  drainedSeq: number;
}

interface WebhookRecord {
  id: string;
  team_id: string;
  url: string;
  events: string;
  datasets: string;
  secret: string;
  previous_secret: string | null;
  previous_until: number | null;
  created: string;
  enabled: number;
  disabled_reason: string | null;
  failing_since: number | null;
  drained_seq: number;
}

function toWebhook(r: WebhookRecord): WebhookRow {
  return {
    id: r.id,
    teamId: r.team_id,
    url: r.url,
    events: JSON.parse(r.events) as EventType[],
    datasets: JSON.parse(r.datasets) as string[],
    secret: JSON.parse(r.secret) as SealedSecret,
    previousSecret: r.previous_secret === null ? null : (JSON.parse(r.previous_secret) as SealedSecret),
    previousUntil: r.previous_until,
    created: r.created,
    enabled: r.enabled === 1,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    drainedSeq: r.drained_seq,
  };
}

/** A new webhook starts after the newest event: it receives what happens from its creation on. */
export async function insertWebhook(db: D1Database, webhook: Pick<WebhookRow, "id" | "teamId" | "url" | "events" | "datasets" | "secret" | "created">): Promise<void> {
  await db
    .prepare(
      `INSERT INTO webhooks (id, team_id, url, events, datasets, secret, created, enabled, drained_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, (SELECT COALESCE(MAX(seq), 0) FROM change_events))`,
    )
    .bind(webhook.id, webhook.teamId, webhook.url, JSON.stringify(webhook.events), JSON.stringify(webhook.datasets), JSON.stringify(webhook.secret), webhook.created)
    .run();
}

export async function listWebhooks(db: D1Database, teamId: string): Promise<WebhookRow[]> {
  const { results } = await db.prepare("SELECT * FROM webhooks WHERE team_id = ? ORDER BY created, id").bind(teamId).all<WebhookRecord>();
  return results.map(toWebhook);
}

/** The team's webhook; null for another team's, exactly as for a missing one. */
export async function getWebhook(db: D1Database, teamId: string, id: string): Promise<WebhookRow | null> {
  const row = await db.prepare("SELECT * FROM webhooks WHERE id = ? AND team_id = ?").bind(id, teamId).first<WebhookRecord>();
  return row ? toWebhook(row) : null;
}

export async function deleteWebhook(db: D1Database, teamId: string, id: string): Promise<boolean> {
  const [, removed] = await db.batch([
    db.prepare("DELETE FROM webhook_deliveries WHERE webhook_id = (SELECT id FROM webhooks WHERE id = ?1 AND team_id = ?2)").bind(id, teamId),
    db.prepare("DELETE FROM webhooks WHERE id = ? AND team_id = ?").bind(id, teamId),
  ]);
  return (removed?.meta.changes ?? 0) > 0;
}

/** The current secret becomes the previous one, signing beside `secret` until `previousUntil` (ms). */
export async function rotateSecret(db: D1Database, teamId: string, id: string, secret: SealedSecret, previousUntil: number): Promise<boolean> {
  const result = await db
    .prepare("UPDATE webhooks SET previous_secret = secret, previous_until = ?, secret = ? WHERE id = ? AND team_id = ?")
    .bind(previousUntil, JSON.stringify(secret), id, teamId)
    .run();
  return result.meta.changes > 0;
}

/**
 * Enables the webhook and makes every undelivered delivery due now; returns their events'
 * positions, oldest first, for the queue. The drain goes on from where it stopped.
 */
export async function enableWebhook(db: D1Database, teamId: string, id: string, now: number): Promise<number[] | null> {
  const [enabled, due] = await db.batch([
    db.prepare("UPDATE webhooks SET enabled = 1, disabled_reason = NULL, failing_since = NULL WHERE id = ? AND team_id = ?").bind(id, teamId),
    db
      .prepare(
        `UPDATE webhook_deliveries SET next_attempt = ?3, updated = ?3
         WHERE webhook_id = (SELECT id FROM webhooks WHERE id = ?1 AND team_id = ?2) AND state = 'pending' RETURNING seq`,
      )
      .bind(id, teamId, now),
  ]);
  if ((enabled?.meta.changes ?? 0) === 0) return null;
  return ((due?.results ?? []) as { seq: number }[]).map((r) => r.seq).sort((a, b) => a - b);
}

export interface DeliveryRow {
  seq: number;
  type: EventType | null;
  state: "pending" | "delivered" | "withheld";
  attempts: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttempt: number;
  updated: number;
}

/** The webhook's deliveries, newest event first. */
export async function listDeliveries(db: D1Database, webhookId: string, beforeSeq: number | undefined, limit: number): Promise<DeliveryRow[]> {
  const { results } = await db
    .prepare(
      `SELECT d.seq, CASE WHEN e.team_id = w.team_id THEN e.type ELSE e.public_type END AS type, d.state, d.attempts,
         d.response_status, d.response_body, d.error, d.next_attempt, d.updated
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN change_events e ON e.seq = d.seq
       WHERE d.webhook_id = ?1 AND d.seq < ?2 ORDER BY d.seq DESC LIMIT ?3`,
    )
    .bind(webhookId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit)
    .all<{ seq: number; type: EventType | null; state: DeliveryRow["state"]; attempts: number; response_status: number | null; response_body: string | null; error: string | null; next_attempt: number; updated: number }>();
  return results.map((r) => ({
    seq: r.seq,
    type: r.type,
    state: r.state,
    attempts: r.attempts,
    responseStatus: r.response_status,
    responseBody: r.response_body,
    error: r.error,
    nextAttempt: r.next_attempt,
    updated: r.updated,
  }));
}

// The drain.

/** Enabled webhooks with events after their position. */
interface StoredEventRecord {
  seq: number;
  type: StoredEvent["type"];
  public_type: StoredEvent["publicType"];
  dataset_id: string;
  team_id: string;
  version_id: string | null;
  occurred: string;
}

function toStoredEvent(r: StoredEventRecord): StoredEvent {
  return { seq: r.seq, type: r.type, publicType: r.public_type, datasetId: r.dataset_id, teamId: r.team_id, versionId: r.version_id, occurred: r.occurred };
}

/**
 * A drain round's read, one round trip: the enabled webhooks behind the newest event, and up to
 * `limit` outbox rows (both views, oldest first) after the lowest position among them. A webhook
 * not behind sits at the newest event or past it, so the lowest enabled position is the lowest
 * behind one whenever one is behind.
 */
export async function drainRead(db: D1Database, limit: number): Promise<{ webhooks: WebhookRow[]; events: StoredEvent[] }> {
  const [webhooks, events] = await db.batch([
    db.prepare("SELECT * FROM webhooks WHERE enabled = 1 AND drained_seq < (SELECT COALESCE(MAX(seq), 0) FROM change_events)"),
    db.prepare("SELECT * FROM change_events WHERE seq > (SELECT MIN(drained_seq) FROM webhooks WHERE enabled = 1) ORDER BY seq LIMIT ?").bind(limit),
  ]);
  return { webhooks: ((webhooks?.results ?? []) as WebhookRecord[]).map(toWebhook), events: ((events?.results ?? []) as StoredEventRecord[]).map(toStoredEvent) };
}

/**
 * Claims `seqs` for the webhook in one transaction: their delivery rows, and its position moved
 * to `drainedTo`. Returns the rows this call inserted (a concurrent drain inserts the rest), so
 * each delivery is queued by one drain.
 */
export async function claimDeliveries(db: D1Database, webhookId: string, seqs: readonly number[], drainedTo: number, now: number): Promise<number[]> {
  const [inserted] = await db.batch([
    db
      .prepare(
        `INSERT INTO webhook_deliveries (webhook_id, seq, state, attempts, next_attempt, updated)
         SELECT ?1, value, 'pending', 0, ?2, ?2 FROM json_each(?3) WHERE true
         ON CONFLICT (webhook_id, seq) DO NOTHING RETURNING seq`,
      )
      .bind(webhookId, now, JSON.stringify(seqs)),
    db.prepare("UPDATE webhooks SET drained_seq = MAX(drained_seq, ?) WHERE id = ?").bind(drainedTo, webhookId),
  ]);
  return ((inserted?.results ?? []) as { seq: number }[]).map((r) => r.seq).sort((a, b) => a - b);
}

/** Pending deliveries of enabled webhooks due before `before`: their message was lost or is late. */
export async function overdueDeliveries(db: D1Database, before: number, now: number, limit: number): Promise<{ webhookId: string; seq: number }[]> {
  const { results } = await db
    .prepare(
      `UPDATE webhook_deliveries SET next_attempt = ?2, updated = ?2
       WHERE rowid IN (SELECT d.rowid FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                       WHERE d.state = 'pending' AND d.next_attempt < ?1 AND w.enabled = 1 ORDER BY d.webhook_id, d.seq LIMIT ?3)
       RETURNING webhook_id, seq`,
    )
    .bind(before, now, limit)
    .all<{ webhook_id: string; seq: number }>();
  return results.map((r) => ({ webhookId: r.webhook_id, seq: r.seq }));
}

// The consumer.

export interface PendingEvent {
  seq: number;
  state: DeliveryRow["state"];
  attempts: number;
  event: StoredEvent;
  /** The dataset's visibility now; null once it is deleted. */
  datasetVisibility: "public" | "private" | null;
}

export interface DeliveriesState {
  webhook: WebhookRow;
  /** The message's events that still have a delivery row, in the order asked (commit order). */
  events: PendingEvent[];
}

/** Everything a message's attempts need, in one round trip; null when the webhook is gone. */
export async function readDeliveries(db: D1Database, webhookId: string, seqs: readonly number[]): Promise<DeliveriesState | null> {
  const list = JSON.stringify(seqs);
  const [webhooks, rows] = await db.batch([
    db.prepare("SELECT * FROM webhooks WHERE id = ?").bind(webhookId),
    db
      .prepare(
        `SELECT d.seq AS d_seq, d.state AS d_state, d.attempts AS d_attempts, e.*, ds.visibility AS ds_visibility
         FROM webhook_deliveries d JOIN change_events e ON e.seq = d.seq LEFT JOIN datasets ds ON ds.id = e.dataset_id
         WHERE d.webhook_id = ?1 AND d.seq IN (SELECT value FROM json_each(?2)) ORDER BY d.seq`,
      )
      .bind(webhookId, list),
  ]);
  const webhook = webhooks?.results[0] as WebhookRecord | undefined;
  if (!webhook) return null;
  type Row = StoredEventRecord & { d_seq: number; d_state: DeliveryRow["state"]; d_attempts: number; ds_visibility: "public" | "private" | null };
  const events = ((rows?.results ?? []) as Row[]).map((r) => ({
    seq: r.d_seq,
    state: r.d_state,
    attempts: r.d_attempts,
    event: toStoredEvent(r),
    datasetVisibility: r.ds_visibility ?? null,
  }));
  return { webhook: toWebhook(webhook), events };
}

/** A dataset's visibility now, or null when it is gone. */
export async function readDatasetVisibility(db: D1Database, datasetId: string): Promise<"public" | "private" | null> {
  const row = await db.prepare("SELECT visibility FROM datasets WHERE id = ?").bind(datasetId).first<{ visibility: "public" | "private" }>();
  return row?.visibility ?? null;
}

/** What became of one of a message's events, as the consumer records it. */
export type Outcome =
  | {
      kind: "attempt";
      seq: number;
      ok: boolean;
      status: number | null;
      body: string | null;
      error: string | null;
      /** When the attempt was made (ms). */
      at: number;
      /** When failed: when the next attempt is due (ms). */
      nextAttempt: number;
      /** When failed for long enough: why the webhook is disabled. */
      disable: string | null;
      /**
       * When failed: the message's events not attempted, due with its retry so the sweep does not
       * send them ahead of it.
       */
      deferred: readonly number[];
    }
  /** A delivery the reader may no longer see (the dataset left public view): never sent. */
  | { kind: "withheld"; seq: number; at: number }
  /** Events a run left for its message's next delivery, due then so the sweep does not send them beside it. */
  | { kind: "deferred"; seqs: readonly number[]; nextAttempt: number };

/**
 * Records outcomes of one webhook's deliveries, in the order they came, in one transaction: each
 * row's attempt, and their effect on the webhook (failing since the first failure after the last
 * success; disabled with its reason).
 */
export async function recordOutcomes(db: D1Database, webhookId: string, outcomes: readonly Outcome[]): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  let succeeded = false;
  let failingSince: number | null = null;
  for (const outcome of outcomes) {
    if (outcome.kind === "deferred") {
      statements.push(
        db
          .prepare("UPDATE webhook_deliveries SET next_attempt = ?3 WHERE webhook_id = ?1 AND state = 'pending' AND seq IN (SELECT value FROM json_each(?2))")
          .bind(webhookId, JSON.stringify(outcome.seqs), outcome.nextAttempt),
      );
      continue;
    }
    if (outcome.kind === "withheld") {
      statements.push(
        db
          .prepare("UPDATE webhook_deliveries SET state = 'withheld', updated = ? WHERE webhook_id = ? AND seq = ? AND state = 'pending'")
          .bind(outcome.at, webhookId, outcome.seq),
      );
      continue;
    }
    statements.push(
      db
        .prepare(
          `UPDATE webhook_deliveries SET state = CASE WHEN ?3 THEN 'delivered' ELSE state END, attempts = attempts + 1,
             response_status = ?4, response_body = ?5, error = ?6, next_attempt = ?7, updated = ?8
           WHERE webhook_id = ?1 AND seq = ?2 AND state = 'pending'`,
        )
        .bind(webhookId, outcome.seq, outcome.ok ? 1 : 0, outcome.status, outcome.body, outcome.error, outcome.ok ? outcome.at : outcome.nextAttempt, outcome.at),
    );
    if (outcome.ok) {
      succeeded = true;
      failingSince = null;
    } else failingSince ??= outcome.at;
    if (!outcome.ok && outcome.deferred.length > 0) {
      statements.push(
        db
          .prepare("UPDATE webhook_deliveries SET next_attempt = ?3 WHERE webhook_id = ?1 AND state = 'pending' AND seq IN (SELECT value FROM json_each(?2))")
          .bind(webhookId, JSON.stringify(outcome.deferred), outcome.nextAttempt),
      );
    }
    if (!outcome.ok && outcome.disable !== null) statements.push(db.prepare("UPDATE webhooks SET enabled = 0, disabled_reason = ? WHERE id = ?").bind(outcome.disable, webhookId));
  }
  // A success clears the failing streak; failures after it start a new one.
  if (succeeded) statements.push(db.prepare("UPDATE webhooks SET failing_since = ? WHERE id = ?").bind(failingSince, webhookId));
  else if (failingSince !== null) statements.push(db.prepare("UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ?").bind(failingSince, webhookId));
  if (statements.length > 0) await db.batch(statements);
}
