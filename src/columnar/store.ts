// The Parquet twin's D1 rows (migrations/0018, docs/storage-protocol.md "The Parquet twin"): which
// parts exist for a segment under an encoding, and a version's twin — pending (no row), ready
// (its parts in order and its tail) or failed (why). build.ts is the one writer.
import { claimParquetStatement } from "../storage/pending-objects-db.ts";

/** A part object: row groups (dataBytes), then metadata (metaBytes), then its rows' statistics summary (summaryBytes). */
export interface StoredPart {
  key: string;
  segmentKey: string;
  dataBytes: number;
  metaBytes: number;
  summaryBytes: number;
  rowCount: number;
}

interface PartRecord {
  key: string;
  segment_key: string;
  data_bytes: number;
  meta_bytes: number;
  summary_bytes: number;
  row_count: number;
}

const PART_COLUMNS = "key, segment_key, data_bytes, meta_bytes, summary_bytes, row_count";

const toPart = (r: PartRecord): StoredPart => ({
  key: r.key,
  segmentKey: r.segment_key,
  dataBytes: r.data_bytes,
  metaBytes: r.meta_bytes,
  summaryBytes: r.summary_bytes,
  rowCount: r.row_count,
});

/** The parts already written under `encoding` for any of `segmentKeys`, by segment key. */
export async function findParts(db: D1Database, segmentKeys: readonly string[], encoding: string): Promise<Map<string, StoredPart>> {
  const { results } = await db
    .prepare(
      `SELECT ${PART_COLUMNS} FROM parquet_parts
       WHERE encoding = ?1 AND segment_key IN (SELECT value FROM json_each(?2))
         AND NOT EXISTS (SELECT 1 FROM pending_objects po WHERE po.key = parquet_parts.key AND po.state = 'collecting')`,
    )
    .bind(encoding, JSON.stringify(segmentKeys))
    .all<PartRecord>();
  return new Map(results.map((r) => [r.segment_key, toPart(r)]));
}

/**
 * Records a finished part; when another build recorded one for the same segment and encoding
 * first, that one is returned and this object stays an intent for the clean-up.
 */
export async function recordPart(db: D1Database, datasetId: string, encoding: string, part: StoredPart): Promise<StoredPart> {
  const [, existing] = await db.batch<PartRecord>([
    db
      .prepare(
        `INSERT INTO parquet_parts (key, dataset_id, segment_key, encoding, data_bytes, meta_bytes, summary_bytes, row_count)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (segment_key, encoding) DO NOTHING`,
      )
      .bind(part.key, datasetId, part.segmentKey, encoding, part.dataBytes, part.metaBytes, part.summaryBytes, part.rowCount),
    db.prepare(`SELECT ${PART_COLUMNS} FROM parquet_parts WHERE segment_key = ?1 AND encoding = ?2`).bind(part.segmentKey, encoding),
  ]);
  const row = existing?.results[0];
  return row ? toPart(row) : part;
}

/**
 * A twin to publish. `tailKey` null: the tail is made from the parts when read (tail-object.ts);
 * builds before stored it, then the merged summary and the statistics document, in that object.
 */
export interface ReadyTwin {
  encoding: string;
  kinds: string;
  tailKey: string | null;
  tailBytes: number;
  summaryBytes: number;
  documentBytes: number;
  fileBytes: number;
  parts: readonly StoredPart[];
}

/**
 * Publishes a version's twin in one batch: its part list replaced, its row set ready, the
 * intents of its parts and tail claimed, and what it stitched before (a rebuild) recorded for
 * the clean-up. Applied only while the version exists and every part is still recorded and not
 * being collected; returns false otherwise.
 */
export async function publishTwin(db: D1Database, datasetId: string, versionId: string, twin: ReadyTwin, collectAfter: number): Promise<boolean> {
  const keys = JSON.stringify(twin.parts.map((p) => p.key));
  // ?1 version, ?2 the part keys in order: every statement below runs only while this holds.
  const applies = `EXISTS (SELECT 1 FROM versions WHERE id = ?1)
    AND (SELECT COUNT(*) FROM parquet_parts p WHERE p.key IN (SELECT value FROM json_each(?2))
           AND NOT EXISTS (SELECT 1 FROM pending_objects po WHERE po.key = p.key AND po.state = 'collecting')) = json_array_length(?2)`;
  const results = await db.batch([
    // What the previous twin stitched and this one drops: collectable once nothing stitches it.
    db
      .prepare(
        `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
         SELECT part_key, ?3, 'replaced', ?4 FROM version_parquet_parts
         WHERE version_id = ?1 AND part_key NOT IN (SELECT value FROM json_each(?2)) AND ${applies}
         ON CONFLICT (key) DO NOTHING`,
      )
      .bind(versionId, keys, datasetId, collectAfter),
    db
      .prepare(
        `INSERT INTO pending_objects (key, dataset_id, reason, collect_after)
         SELECT tail_key, ?3, 'replaced', ?4 FROM version_parquet
         WHERE version_id = ?1 AND tail_key IS NOT NULL AND (?5 IS NULL OR tail_key != ?5) AND ${applies}
         ON CONFLICT (key) DO NOTHING`,
      )
      .bind(versionId, keys, datasetId, collectAfter, twin.tailKey),
    db.prepare(`DELETE FROM version_parquet_parts WHERE version_id = ?1 AND ${applies}`).bind(versionId, keys),
    db
      .prepare(`INSERT INTO version_parquet_parts (version_id, position, part_key) SELECT ?1, j.key, j.value FROM json_each(?2) j WHERE ${applies}`)
      .bind(versionId, keys),
    db
      .prepare(
        `INSERT INTO version_parquet (version_id, state, encoding, kinds, tail_key, tail_bytes, summary_bytes, document_bytes, file_bytes, error, updated)
         SELECT ?1, 'ready', ?3, ?4, ?5, ?6, ?7, ?8, ?9, NULL, ?10 WHERE ${applies}
         ON CONFLICT (version_id) DO UPDATE SET state = 'ready', encoding = excluded.encoding, kinds = excluded.kinds,
           tail_key = excluded.tail_key, tail_bytes = excluded.tail_bytes, summary_bytes = excluded.summary_bytes,
           document_bytes = excluded.document_bytes, file_bytes = excluded.file_bytes, error = NULL, updated = excluded.updated`,
      )
      .bind(versionId, keys, twin.encoding, twin.kinds, twin.tailKey, twin.tailBytes, twin.summaryBytes, twin.documentBytes, twin.fileBytes, new Date().toISOString()),
    claimParquetStatement(db, [...twin.parts.map((p) => p.key), ...(twin.tailKey === null ? [] : [twin.tailKey])]),
  ]);
  return (results[4]?.meta.changes ?? 0) > 0;
}

/** A build that can never succeed: the version's twin says why (it stays absent from the file path). */
export async function markTwinFailed(db: D1Database, versionId: string, error: string): Promise<void> {
  await db
    .prepare(
      `INSERT INTO version_parquet (version_id, state, error, updated) SELECT ?1, 'failed', ?2, ?3 WHERE EXISTS (SELECT 1 FROM versions WHERE id = ?1)
       ON CONFLICT (version_id) DO UPDATE SET state = 'failed', error = excluded.error, updated = excluded.updated WHERE version_parquet.state != 'ready'`,
    )
    .bind(versionId, error.slice(0, 500), new Date().toISOString())
    .run();
}

export interface TwinState {
  state: "ready" | "failed";
  encoding: string | null;
  kinds: string | null;
  tailKey: string | null;
  tailBytes: number;
  summaryBytes: number;
  /** Its parts in order, with the segments they encode. */
  parts: StoredPart[];
}

/** The version's twin as built so far, or null while it is pending. */
export async function getTwinState(db: D1Database, versionId: string): Promise<TwinState | null> {
  type Row = { state: "ready" | "failed"; encoding: string | null; kinds: string | null; tail_key: string | null; tail_bytes: number | null; summary_bytes: number | null };
  const [twin, parts] = await db.batch<Row & PartRecord>([
    db.prepare("SELECT state, encoding, kinds, tail_key, tail_bytes, summary_bytes FROM version_parquet WHERE version_id = ?1").bind(versionId),
    db
      .prepare(
        `SELECT p.key, p.segment_key, p.data_bytes, p.meta_bytes, p.summary_bytes, p.row_count
         FROM version_parquet_parts vp JOIN parquet_parts p ON p.key = vp.part_key WHERE vp.version_id = ?1 ORDER BY vp.position`,
      )
      .bind(versionId),
  ]);
  const row = twin?.results[0];
  if (!row) return null;
  return {
    state: row.state,
    encoding: row.encoding,
    kinds: row.kinds,
    tailKey: row.tail_key,
    tailBytes: row.tail_bytes ?? 0,
    summaryBytes: row.summary_bytes ?? 0,
    parts: (parts?.results ?? []).map(toPart),
  };
}

/** Where a dataset's twins stand when a build message for one of its versions is handled. */
export interface TwinProgress {
  /** The dataset's latest version, or null when the dataset is gone. */
  latest: string | null;
  /** When the newest ready twin of any of its versions was published (ISO 8601), or null. */
  lastPublished: string | null;
}

export async function getTwinProgress(db: D1Database, datasetId: string): Promise<TwinProgress> {
  const [latest, published] = await db.batch<{ value: string }>([
    db.prepare("SELECT latest_version AS value FROM datasets WHERE id = ?1").bind(datasetId),
    // From the newest version down: under a burst the newest ready twin is a few versions back.
    db
      .prepare(
        `SELECT p.updated AS value FROM versions v JOIN version_parquet p ON p.version_id = v.id
         WHERE v.dataset_id = ?1 AND p.state = 'ready' ORDER BY v.seq DESC LIMIT 1`,
      )
      .bind(datasetId),
  ]);
  return { latest: latest?.results[0]?.value ?? null, lastPublished: published?.results[0]?.value ?? null };
}
