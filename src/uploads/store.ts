// D1 access for resumable uploads (migrations/0014, 0017): one row per upload resource, and one
// `upload_segments` row per segment its chunks stored, so the upload row stays the same size
// however many chunks land. A chunk lands with a compare-and-swap on `upload_offset`, so of two
// appends at one offset only one lands; the same batch rewrites the tail of the segment list
// (merges, src/uploads/segments.ts) and keeps the listed objects (intents in
// pending_objects) from being collected while the upload lives. Expired uploads make their
// objects due for the clean-up. The commit of the last chunk settles the upload in its own batch
// (settleUploadStatement), so a committed upload is never left "being committed".
import type { CsvCheckpoint, CsvStats } from "../csv/types.ts";
import type { TypingCheckpoint } from "../schema/column-typer.ts";
import type { DeclaredSchema } from "../schema/declared.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import type { SegmentRow } from "../model/dataset.ts";

export type UploadKind = "create" | "update" | "append";
export type UploadState = "open" | "completing" | "done" | "failed";

/** What the chunks landed so far add up to (their segments are in `upload_segments`). Plain data, stored as JSON. */
export interface UploadProgress {
  rawBytes: number;
  crc: number;
  /** The scan's state at the last record end; null before the first one. */
  checkpoint: CsvCheckpoint | null;
  /** The column typing's state to go on from (docs/column-types.md), with `checkpoint`. */
  typing: TypingCheckpoint | null;
  /**
   * The whole file's scan, stored with the last chunk (state 'completing') so that a commit cut
   * off by a dying worker can be run again from it; absent when too large to keep (a very wide header).
   */
  final?: FinalScan;
}

export interface FinalScan {
  stats: CsvStats;
  schema: TableSchema;
  declared: DeclaredSchema | null;
}

export interface UploadRow {
  id: string;
  teamId: string;
  userId: string;
  keyId: string;
  kind: UploadKind;
  datasetId: string;
  ifMatch: string | null;
  /** The creation request's description (src/datasets/resumable-request.ts), as JSON. */
  request: string;
  offset: number;
  /** The announced length of the content as sent (migrations/0016), or null while unknown. */
  length: number | null;
  /** Chunks landed so far (migrations/0017), held to MAX_UPLOAD_CHUNKS. */
  chunks: number;
  state: UploadState;
  progress: UploadProgress;
  carry: Uint8Array;
  /** JSON: the final answer ('done') or the problem ('failed'). */
  outcome: string | null;
  created: number;
  expiresAt: number;
}

interface UploadRecord {
  id: string;
  team_id: string;
  user_id: string;
  key_id: string;
  kind: UploadKind;
  dataset_id: string;
  if_match: string | null;
  request: string;
  upload_offset: number;
  upload_length: number | null;
  chunks: number;
  state: UploadState;
  progress: string;
  carry: ArrayBuffer | number[] | null;
  outcome: string | null;
  created: number;
  expires_at: number;
}

function fromRecord(r: UploadRecord): UploadRow {
  return {
    id: r.id,
    teamId: r.team_id,
    userId: r.user_id,
    keyId: r.key_id,
    kind: r.kind,
    datasetId: r.dataset_id,
    ifMatch: r.if_match,
    request: r.request,
    offset: r.upload_offset,
    length: r.upload_length,
    chunks: r.chunks,
    state: r.state,
    progress: JSON.parse(r.progress) as UploadProgress,
    carry: r.carry === null ? new Uint8Array(0) : new Uint8Array(r.carry),
    outcome: r.outcome,
    created: r.created,
    expiresAt: r.expires_at,
  };
}

export async function insertUpload(db: D1Database, row: UploadRow): Promise<void> {
  await db
    .prepare(
      `INSERT INTO uploads (id, team_id, user_id, key_id, kind, dataset_id, if_match, request, upload_offset, state, progress, carry, created, expires_at, upload_length, chunks)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, NULL, ?12, ?13, ?14, ?15)`,
    )
    .bind(row.id, row.teamId, row.userId, row.keyId, row.kind, row.datasetId, row.ifMatch, row.request, row.offset, row.state, JSON.stringify(row.progress), row.created, row.expiresAt, row.length, row.chunks)
    .run();
}

export async function getUpload(db: D1Database, id: string): Promise<UploadRow | null> {
  const record = await db.prepare("SELECT * FROM uploads WHERE id = ?1").bind(id).first<UploadRecord>();
  return record ? fromRecord(record) : null;
}

interface SegmentRecord {
  key: string;
  compressed_bytes: number;
  raw_bytes: number;
  row_count: number;
  parts: string | null;
}

/** The upload's stored segments, in content order. */
export async function getUploadSegments(db: D1Database, id: string): Promise<SegmentRow[]> {
  const { results } = await db
    .prepare("SELECT key, compressed_bytes, raw_bytes, row_count, parts FROM upload_segments WHERE upload_id = ?1 ORDER BY position")
    .bind(id)
    .all<SegmentRecord>();
  return results.map((r) => ({
    key: r.key,
    compressedBytes: r.compressed_bytes,
    rawBytes: r.raw_bytes,
    rowCount: r.row_count,
    ...(r.parts === null ? {} : { parts: JSON.parse(r.parts) as SegmentRow["parts"] }),
  }));
}

/** A landed chunk's change to the segment list: from `from` on, the list is `tail`; `replaced` were merged away. */
export interface SegmentListChange {
  from: number;
  tail: SegmentRow[];
  replaced: string[];
}

/**
 * Lands a chunk: moves the upload from `fromOffset` to `next.offset` unless another append
 * landed first (or it expired, failed or completed meanwhile), rewrites its segment list's tail,
 * makes the merged-away objects due after `replacedCollectAfter`, and keeps the listed objects'
 * intents uncollectable until `collectAfter`. True when this call landed it.
 */
export async function advanceUpload(
  db: D1Database,
  id: string,
  fromOffset: number,
  now: number,
  next: {
    offset: number;
    length: number | null;
    state: "open" | "completing";
    progress: UploadProgress;
    carry: Uint8Array;
    expiresAt: number;
    collectAfter: number;
    list: SegmentListChange;
    replacedCollectAfter: number;
    /** The creation's description as it stands now (an append's types may have changed, schema.ts). */
    request: string;
  },
): Promise<boolean> {
  // The list's statements run first, under the same condition as the compare-and-swap after
  // them: in one transaction they apply exactly when it does.
  const unchanged = "EXISTS (SELECT 1 FROM uploads WHERE id = ?1 AND upload_offset = ?2 AND state = 'open' AND expires_at > ?3)";
  const tail = next.list.tail.map((s) => ({ ...s, parts: s.parts && s.parts.length > 0 ? JSON.stringify(s.parts) : null }));
  const results = await db.batch<{ id: string }>([
    db.prepare(`DELETE FROM upload_segments WHERE upload_id = ?1 AND position >= ?4 AND ${unchanged}`).bind(id, fromOffset, now, next.list.from),
    db
      .prepare(
        `INSERT INTO upload_segments (upload_id, position, key, compressed_bytes, raw_bytes, row_count, parts)
         SELECT ?1, ?4 + CAST(t.key AS INTEGER), json_extract(t.value, '$.key'), json_extract(t.value, '$.compressedBytes'),
                json_extract(t.value, '$.rawBytes'), json_extract(t.value, '$.rowCount'), json_extract(t.value, '$.parts')
         FROM json_each(?5) t WHERE ${unchanged}`,
      )
      .bind(id, fromOffset, now, next.list.from, JSON.stringify(tail)),
    db
      .prepare(
        `UPDATE pending_objects SET collect_after = ?4
         WHERE key IN (SELECT value FROM json_each(?5)) AND reason = 'upload' AND state = 'pending' AND ${unchanged}`,
      )
      .bind(id, fromOffset, now, next.replacedCollectAfter, JSON.stringify(next.list.replaced)),
    db
      .prepare(
        `UPDATE uploads SET upload_offset = ?4, state = ?5, progress = ?6, carry = ?7, expires_at = ?8, upload_length = ?9, chunks = chunks + 1, request = ?10
         WHERE id = ?1 AND upload_offset = ?2 AND state = 'open' AND expires_at > ?3 RETURNING id`,
      )
      .bind(id, fromOffset, now, next.offset, next.state, JSON.stringify(next.progress), next.carry.length > 0 ? next.carry : null, next.expiresAt, next.length, next.request),
    db
      .prepare(
        `UPDATE pending_objects SET collect_after = MAX(collect_after, ?2)
         WHERE key IN (SELECT key FROM upload_segments WHERE upload_id = ?1) AND reason = 'upload' AND state = 'pending'`,
      )
      .bind(id, next.collectAfter),
  ]);
  return (results[3]?.results.length ?? 0) > 0;
}

/** Ends an upload: 'done' with its answer, or 'failed' with its problem. */
export async function settleUpload(db: D1Database, id: string, state: "done" | "failed", outcome: string, expiresAt: number): Promise<void> {
  await settleUploadStatement(db, id, state, outcome, expiresAt).run();
}

/**
 * The upload's one commit (migrations/0015): in the commit's batch, it fails the whole batch
 * on the primary key when another commit of the same upload landed first.
 */
export function uploadCommitStatement(db: D1Database, id: string, versionId: string, now: number): D1PreparedStatement {
  return db.prepare("INSERT INTO upload_commits (upload_id, version_id, committed) VALUES (?1, ?2, ?3)").bind(id, versionId, now);
}

/** settleUpload as a statement, for the commit's batch. */
export function settleUploadStatement(db: D1Database, id: string, state: "done" | "failed", outcome: string, expiresAt: number): D1PreparedStatement {
  return db
    .prepare("UPDATE uploads SET state = ?2, outcome = ?3, carry = NULL, expires_at = ?4 WHERE id = ?1 AND state IN ('open', 'completing')")
    .bind(id, state, outcome, expiresAt);
}

/**
 * Takes over the commit of an upload left 'completing' (its worker died before the commit's
 * batch, which would have settled it): moves its expiry, and is true for the one caller whose
 * swap from `fromExpiresAt` landed.
 */
export async function retakeCompletion(db: D1Database, id: string, fromExpiresAt: number, expiresAt: number): Promise<boolean> {
  const { results } = await db
    .prepare("UPDATE uploads SET expires_at = ?3 WHERE id = ?1 AND state = 'completing' AND expires_at = ?2 RETURNING id")
    .bind(id, fromExpiresAt, expiresAt)
    .all();
  return results.length > 0;
}

/**
 * Makes the intents of these uploads' listed, unclaimed objects due now (a claimed object has no
 * intent left; unlisted ones fall due on their own, at most WRITE_GRACE after the upload's expiry).
 */
function dueIntentsStatement(db: D1Database, where: string, bind: unknown[], now: number): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE pending_objects SET collect_after = ?1
       WHERE reason = 'upload' AND state = 'pending' AND key IN (
         SELECT s.key FROM uploads u JOIN upload_segments s ON s.upload_id = u.id WHERE ${where})`,
    )
    .bind(now, ...bind);
}

/** DELETE of an upload resource: its rows go, its objects become due for the clean-up. */
export async function deleteUpload(db: D1Database, id: string, now: number): Promise<void> {
  await db.batch([
    dueIntentsStatement(db, "u.id = ?2", [id], now),
    db.prepare("DELETE FROM upload_segments WHERE upload_id = ?1").bind(id),
    db.prepare("DELETE FROM upload_commits WHERE upload_id = ?1").bind(id),
    db.prepare("DELETE FROM uploads WHERE id = ?1").bind(id),
  ]);
}

/** The clean-up's step: uploads idle past their expiry go, and their objects become due. */
export async function expireUploads(db: D1Database, now: number): Promise<number> {
  const [, , , removed] = await db.batch([
    dueIntentsStatement(db, "u.expires_at <= ?2", [now], now),
    db.prepare("DELETE FROM upload_segments WHERE upload_id IN (SELECT id FROM uploads WHERE expires_at <= ?1)").bind(now),
    db.prepare("DELETE FROM upload_commits WHERE upload_id IN (SELECT id FROM uploads WHERE expires_at <= ?1)").bind(now),
    db.prepare("DELETE FROM uploads WHERE expires_at <= ?1").bind(now),
  ]);
  return removed?.meta.changes ?? 0;
}
