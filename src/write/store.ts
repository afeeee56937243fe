// The write flow's own D1 access (the dataset, version and segment rows are storage/'s).
// Idempotency-Key records (docs/api.md#idempotent-writes): the row's PRIMARY KEY (key_id,
// idempotency_key) is the lock, and a row past `expires` is treated as absent everywhere.
// Deleting a dataset: every row of it in one batch (a transaction), children before parents so
// foreign keys hold at each statement; its R2 objects are recorded in the intent log first, for
// the scheduled clean-up to delete, and its change event is written in the same batch.
import type { IdempotencyScope } from "../model/idempotency.ts";
import { recordDatasetObjectsStatement, recordDatasetParquetStatements } from "../storage/pending-objects-db.ts";
import { unindexStatements } from "../storage/search-db.ts";
import { deleteDatasetPartsStatement } from "../storage/segment-parts-db.ts";
import { deleteEventStatement } from "../changes/store.ts";

export type { IdempotencyScope };

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: "in_flight"; fingerprint: string }
  | { state: "done"; fingerprint: string; response: StoredResponse };

interface RecordRow {
  request_fingerprint: string;
  state: string;
  status: number | null;
  response_headers: string | null;
  response_body: string | null;
}

/**
 * Reserves the key for one request: inserts an in-flight row, or takes over a row that has
 * expired. False when a live row exists (another request holds or has answered this key).
 */
export async function reserveIdempotencyKey(
  db: D1Database,
  scope: IdempotencyScope,
  reservation: { token: string; fingerprint: string; nowSeconds: number; leaseSeconds: number },
): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, request_fingerprint, reservation, state, created, expires)
       VALUES (?1, ?2, ?3, ?4, 'in_flight', ?5, ?6)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
         request_fingerprint = excluded.request_fingerprint, reservation = excluded.reservation, state = 'in_flight',
         status = NULL, response_headers = NULL, response_body = NULL, created = excluded.created, expires = excluded.expires
       WHERE idempotency_keys.expires <= ?5`,
    )
    .bind(scope.keyId, scope.idempotencyKey, reservation.fingerprint, reservation.token, reservation.nowSeconds, reservation.nowSeconds + reservation.leaseSeconds)
    .run();
  return result.meta.changes > 0;
}

/** The live record for the key, or null when there is none (or it has expired). */
export async function findIdempotencyRecord(db: D1Database, scope: IdempotencyScope, nowSeconds: number): Promise<IdempotencyRecord | null> {
  const row = await db
    .prepare(
      `SELECT request_fingerprint, state, status, response_headers, response_body FROM idempotency_keys
       WHERE key_id = ? AND idempotency_key = ? AND expires > ?`,
    )
    .bind(scope.keyId, scope.idempotencyKey, nowSeconds)
    .first<RecordRow>();
  if (!row) return null;
  if (row.state !== "done" || row.status === null) return { state: "in_flight", fingerprint: row.request_fingerprint };
  return {
    state: "done",
    fingerprint: row.request_fingerprint,
    response: { status: row.status, headers: parseHeaders(row.response_headers), body: row.response_body ?? "" },
  };
}

function parseHeaders(json: string | null): Record<string, string> {
  const parsed: unknown = JSON.parse(json ?? "{}");
  const headers: Record<string, string> = {};
  if (typeof parsed !== "object" || parsed === null) return headers;
  for (const [name, value] of Object.entries(parsed)) if (typeof value === "string") headers[name] = value;
  return headers;
}

/** Stores the answer of the request holding `token`; it is replayed until `expires`. */
export async function completeIdempotencyKey(
  db: D1Database,
  scope: IdempotencyScope,
  token: string,
  response: StoredResponse,
  expiresSeconds: number,
): Promise<void> {
  await completeIdempotencyStatement(db, scope, token, response, expiresSeconds).run();
}

/**
 * The same as one statement, so a write can store its answer in the batch that commits it: a
 * committed write then always has its answer stored, even if the worker dies right after.
 */
export function completeIdempotencyStatement(
  db: D1Database,
  scope: IdempotencyScope,
  token: string,
  response: StoredResponse,
  expiresSeconds: number,
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE idempotency_keys SET state = 'done', status = ?1, response_headers = ?2, response_body = ?3, expires = ?4
       WHERE key_id = ?5 AND idempotency_key = ?6 AND reservation = ?7`,
    )
    .bind(response.status, JSON.stringify(response.headers), response.body, expiresSeconds, scope.keyId, scope.idempotencyKey, token);
}

/** Frees the key after a failed request, so the client may retry with the same key. */
export async function releaseIdempotencyKey(db: D1Database, scope: IdempotencyScope, token: string): Promise<void> {
  await db
    .prepare("DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND reservation = ? AND state = 'in_flight'")
    .bind(scope.keyId, scope.idempotencyKey, token)
    .run();
}

/** Deletes expired records (for the scheduled clean-up); returns how many went. */
export async function purgeExpiredIdempotencyRecords(db: D1Database, nowSeconds: number): Promise<number> {
  const result = await db.prepare("DELETE FROM idempotency_keys WHERE expires <= ?").bind(nowSeconds).run();
  return result.meta.changes;
}

/** Deletes the dataset and everything of it; false when there was no such dataset. */
export async function deleteDatasetRows(db: D1Database, datasetId: string, collectObjectsAfter: number): Promise<boolean> {
  const results = await db.batch([
    // Read from the dataset row before it goes: no row, no event (docs/storage-protocol.md "Change events").
    deleteEventStatement(db, datasetId, new Date().toISOString()),
    recordDatasetObjectsStatement(db, datasetId, collectObjectsAfter),
    ...recordDatasetParquetStatements(db, datasetId, collectObjectsAfter),
    db
      .prepare("DELETE FROM version_segments WHERE version_id IN (SELECT id FROM versions WHERE dataset_id = ?)")
      .bind(datasetId),
    db.prepare("DELETE FROM version_parquet_parts WHERE version_id IN (SELECT id FROM versions WHERE dataset_id = ?)").bind(datasetId),
    db.prepare("DELETE FROM version_parquet WHERE version_id IN (SELECT id FROM versions WHERE dataset_id = ?)").bind(datasetId),
    db.prepare("DELETE FROM parquet_parts WHERE dataset_id = ?").bind(datasetId),
    deleteDatasetPartsStatement(db, datasetId),
    db.prepare("DELETE FROM segments WHERE dataset_id = ?").bind(datasetId),
    db.prepare("DELETE FROM versions WHERE dataset_id = ?").bind(datasetId),
    ...unindexStatements(db, datasetId),
    db.prepare("DELETE FROM datasets WHERE id = ?").bind(datasetId),
  ]);
  const last = results[results.length - 1];
  return (last?.meta.changes ?? 0) > 0;
}
