// D1 access for datasets, their immutable versions and the segment lists behind each version.
// Writes go through `commitVersion`, one D1 batch (a transaction): the single point that makes
// a version and its R2 segments reachable (docs/storage-protocol.md).
import type { DeclaredSchema } from "../schema/declared.ts";
import type { DatasetRow, SegmentRow, StoredVersionRow, VersionRow, Visibility } from "../model/dataset.ts";
import { textSchema, type TableSchema } from "../schema/table-schema.ts";
import { claimableCondition, claimStatement } from "./pending-objects-db.ts";
import { indexStatements, searchFields } from "./search-db.ts";
import { getVersionParts, insertPartsStatement } from "./segment-parts-db.ts";
import { withFieldNames } from "../schema/table-schema.ts";


export interface DatasetRecord {
  id: string;
  team_id: string;
  owner_id: string;
  created: string;
  name: string;
  visibility: Visibility;
  latest_version: string;
  latest_seq: number;
}

export interface VersionRecord {
  id: string;
  dataset_id: string;
  seq: number;
  parent_id: string | null;
  created: string;
  name: string;
  visibility: Visibility;
  properties: string;
  file_name: string;
  columns: string;
  row_count: number;
  raw_bytes: number;
  crc32: number;
  eol: string;
  ends_with_newline: number;
  history_public: number;
  header_id: string;
  properties_id: string;
  schema_id: string | null;
  declared_schema_id: string | null;
  table_schema: string | null;
  declared_schema: string | null;
}

export function toDataset(r: DatasetRecord): DatasetRow {
  return {
    id: r.id,
    teamId: r.team_id,
    ownerId: r.owner_id,
    created: r.created,
    name: r.name,
    visibility: r.visibility,
    latestVersion: r.latest_version,
    latestSeq: r.latest_seq,
  };
}

export function toVersion(r: VersionRecord): StoredVersionRow {
  return {
    id: r.id,
    datasetId: r.dataset_id,
    seq: r.seq,
    parentId: r.parent_id,
    created: r.created,
    name: r.name,
    visibility: r.visibility,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    fileName: r.file_name,
    columns: JSON.parse(r.columns) as string[],
    rowCount: r.row_count,
    rawBytes: r.raw_bytes,
    crc32: r.crc32,
    eol: r.eol === "\r\n" ? "\r\n" : "\n",
    endsWithNewline: r.ends_with_newline === 1,
    historyPublic: r.history_public === 1,
    headerId: r.header_id,
    propertiesId: r.properties_id,
    schema: r.table_schema ? withFieldNames(JSON.parse(r.table_schema) as TableSchema) : textSchema(JSON.parse(r.columns) as string[]),
    declared: r.declared_schema ? (JSON.parse(r.declared_schema) as DeclaredSchema) : null,
    declaredId: r.declared_schema_id,
    ...(r.schema_id ? { schemaId: r.schema_id } : {}),
  };
}

export async function getDataset(db: D1Database, id: string): Promise<DatasetRow | null> {
  const row = await db.prepare("SELECT * FROM datasets WHERE id = ?").bind(id).first<DatasetRecord>();
  return row ? toDataset(row) : null;
}

export async function getVersion(db: D1Database, datasetId: string, versionId: string): Promise<StoredVersionRow | null> {
  const row = await db
    .prepare("SELECT * FROM version_records WHERE dataset_id = ? AND id = ?")
    .bind(datasetId, versionId)
    .first<VersionRecord>();
  return row ? toVersion(row) : null;
}

/** The dataset and its latest version in one round trip (a batch of two reads). */
export async function getLatestState(db: D1Database, datasetId: string): Promise<{ dataset: DatasetRow; version: VersionRow } | null> {
  const [datasets, versions] = await db.batch([
    db.prepare("SELECT * FROM datasets WHERE id = ?").bind(datasetId),
    db.prepare("SELECT v.* FROM datasets d JOIN version_records v ON v.id = d.latest_version WHERE d.id = ?").bind(datasetId),
  ]);
  const dataset = (datasets?.results[0] as DatasetRecord | undefined) ?? null;
  const version = (versions?.results[0] as VersionRecord | undefined) ?? null;
  return dataset && version ? { dataset: toDataset(dataset), version: toVersion(version) } : null;
}

/** Whether a version is committed: the read-back after a commit whose answer was lost. */
export async function versionExists(db: D1Database, versionId: string): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS found FROM versions WHERE id = ?").bind(versionId).first<{ found: number }>()) !== null;
}

/** The dataset's latest version, or null when the dataset is gone. */
export async function latestVersionId(db: D1Database, datasetId: string): Promise<string | null> {
  const row = await db.prepare("SELECT latest_version FROM datasets WHERE id = ?").bind(datasetId).first<{ latest_version: string }>();
  return row?.latest_version ?? null;
}

export async function datasetExists(db: D1Database, datasetId: string): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS found FROM datasets WHERE id = ?").bind(datasetId).first<{ found: number }>()) !== null;
}

export async function getVersionSegments(db: D1Database, versionId: string): Promise<SegmentRow[]> {
  const { results } = await db
    .prepare(
      `SELECT s.key, s.compressed_bytes, s.raw_bytes, s.row_count
       FROM version_segments vs JOIN segments s ON s.key = vs.segment_key
       WHERE vs.version_id = ? ORDER BY vs.position`,
    )
    .bind(versionId)
    .all<{ key: string; compressed_bytes: number; raw_bytes: number; row_count: number }>();
  return results.map((r) => ({ key: r.key, compressedBytes: r.compressed_bytes, rawBytes: r.raw_bytes, rowCount: r.row_count }));
}

/**
 * A version's segments with their part lists (for reads that locate a row), two queries at
 * once. Should a compaction land between them, a segment left without its parts reads whole.
 */
export async function getVersionSegmentsWithParts(db: D1Database, versionId: string): Promise<SegmentRow[]> {
  const [segments, parts] = await Promise.all([getVersionSegments(db, versionId), getVersionParts(db, versionId)]);
  return segments.map((s) => {
    const list = parts.get(s.key);
    return list ? { ...s, parts: list } : s;
  });
}

/** A new version to commit. `reuseParentSegments` copies the parent's list before `newSegments`. */
export interface VersionCommit {
  dataset: { id: string; teamId: string; ownerId: string } | null; // non-null: create the dataset row
  version: Omit<VersionRow, "datasetId"> & { datasetId: string };
  reuseParentSegments: boolean;
  /** Objects this write uploaded; each must still be an unclaimed intent (pending-objects-db). */
  newSegments: SegmentRow[];
  /** Statements that commit with the version or not at all (the Idempotency-Key's answer). */
  alongside: D1PreparedStatement[];
  /** False when what search indexes is the parent's (search-db.ts searchFields): the row already says the same. */
  reindex: boolean;
  /** docs/api.md#who-sees-what `"history": "public"`: publish every earlier version in the same transaction. */
  publishHistory?: boolean;
}

/**
 * A header or property set is stored once per distinct value, under the SHA-256 of its JSON;
 * a version row names it (docs/storage-protocol.md). The insert is part of the commit batch and a no-op when the
 * value is already stored.
 */
async function storedOnce(
  db: D1Database,
  table: "headers" | "property_sets" | "table_schemas",
  column: "columns" | "properties" | "schema",
  json: string,
) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(json)));
  const id = "sha256-" + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  const insert = db.prepare(`INSERT INTO ${table} (id, ${column}) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`).bind(id, json);
  return { id, insert };
}

/**
 * `gone`: the dataset was deleted between reading its latest version and committing.
 * `unclaimable`: an uploaded object's intent was collected (the write outlasted the grace).
 */
export type CommitOutcome = "committed" | "conflict" | "gone" | "unclaimable";

/**
 * Commits a version in one transaction. The UNIQUE (dataset_id, seq) constraint is the
 * compare-and-swap: when another writer already committed seq, nothing is written and the
 * caller retries on the new latest version (docs/api.md#who-sees-what).
 */
export async function commitVersion(db: D1Database, commit: VersionCommit): Promise<CommitOutcome> {
  return commitVersions(db, [commit]);
}

/**
 * Commits consecutive versions of one dataset in one transaction (a group commit: each builds on
 * the one before it, which the same batch inserts first). All of them, or none.
 */
export async function commitVersions(db: D1Database, commits: readonly VersionCommit[]): Promise<CommitOutcome> {
  const first = commits[0];
  if (!first) return "committed";
  const statements: D1PreparedStatement[] = [];
  for (const commit of commits) statements.push(...(await versionStatements(db, commit)));
  try {
    await db.batch(statements);
    return "committed";
  } catch (error: unknown) {
    if (error instanceof Error && /UNIQUE constraint failed: versions\.dataset_id, versions\.seq/.test(error.message)) {
      return "conflict";
    }
    if (error instanceof Error && /FOREIGN KEY constraint failed/.test(error.message)) {
      return first.dataset || (await datasetExists(db, first.version.datasetId)) ? "unclaimable" : "gone";
    }
    throw error;
  }
}

async function versionStatements(db: D1Database, commit: VersionCommit): Promise<D1PreparedStatement[]> {
  const v = commit.version;
  const now = v.created;
  const statements: D1PreparedStatement[] = [];
  if (commit.dataset) {
    statements.push(
      db
        .prepare(
          `INSERT INTO datasets (id, team_id, owner_id, created, name, visibility, latest_version, latest_seq)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .bind(commit.dataset.id, commit.dataset.teamId, commit.dataset.ownerId, now, v.name, v.visibility, v.id, v.seq),
    );
  }
  for (const s of commit.newSegments) {
    // Inserts nothing once the clean-up has started to collect the object; the version's
    // reference to it below then fails its foreign key and the whole batch with it.
    statements.push(
      db
        .prepare(
          `INSERT INTO segments (key, dataset_id, compressed_bytes, raw_bytes, row_count, created)
           SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE ${claimableCondition("?1")}`,
        )
        .bind(s.key, v.datasetId, s.compressedBytes, s.rawBytes, s.rowCount, now),
    );
    // One part is the whole object, which is what a segment without part rows means.
    if (s.parts && s.parts.length > 1) statements.push(insertPartsStatement(db, s.key, s.parts));
  }
  const header = v.headerId ? { id: v.headerId, insert: null } : await storedOnce(db, "headers", "columns", JSON.stringify(v.columns));
  const properties = v.propertiesId
    ? { id: v.propertiesId, insert: null }
    : await storedOnce(db, "property_sets", "properties", JSON.stringify(v.properties));
  const schema = v.schemaId ? { id: v.schemaId, insert: null } : await storedOnce(db, "table_schemas", "schema", JSON.stringify(v.schema));
  const declared =
    v.declared === null
      ? { id: null, insert: null }
      : v.declaredId
        ? { id: v.declaredId, insert: null }
        : await storedOnce(db, "table_schemas", "schema", JSON.stringify(v.declared));
  if (header.insert) statements.push(header.insert);
  if (properties.insert) statements.push(properties.insert);
  if (schema.insert) statements.push(schema.insert);
  if (declared.insert && declared.id !== schema.id) statements.push(declared.insert);
  statements.push(
    db
      .prepare(
        `INSERT INTO versions (id, dataset_id, seq, parent_id, created, name, visibility, properties_id, file_name,
           header_id, row_count, raw_bytes, crc32, eol, ends_with_newline, schema_id, declared_schema_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        v.id, v.datasetId, v.seq, v.parentId, v.created, v.name, v.visibility, properties.id, v.fileName,
        header.id, v.rowCount, v.rawBytes, v.crc32, v.eol, v.endsWithNewline ? 1 : 0, schema.id, declared.id,
      ),
  );
  if (commit.reuseParentSegments && v.parentId) {
    statements.push(
      db
        .prepare(
          `INSERT INTO version_segments (version_id, position, segment_key)
           SELECT ?, position, segment_key FROM version_segments WHERE version_id = ?`,
        )
        .bind(v.id, v.parentId),
    );
  }
  // Each new segment goes after the list as copied inside this transaction, never after a
  // count read earlier: a compaction committed in between may have shortened the parent's list.
  for (const s of commit.newSegments) {
    statements.push(
      db
        .prepare(
          `INSERT INTO version_segments (version_id, position, segment_key)
           VALUES (?1, (SELECT COALESCE(MAX(position) + 1, 0) FROM version_segments WHERE version_id = ?1), ?2)`,
        )
        .bind(v.id, s.key),
    );
  }
  if (!commit.dataset) {
    statements.push(
      db
        .prepare("UPDATE datasets SET name = ?, visibility = ?, latest_version = ?, latest_seq = ? WHERE id = ? AND latest_seq = ?")
        .bind(v.name, v.visibility, v.id, v.seq, v.datasetId, v.seq - 1),
    );
  }
  if (commit.reindex) statements.push(...indexStatements(db, v.datasetId, searchFields(v)));
  if (commit.publishHistory) statements.push(publishHistoryStatement(db, v.datasetId, v.seq));
  if (commit.newSegments.length > 0) statements.push(claimStatement(db, commit.newSegments.map((s) => s.key)));
  statements.push(...commit.alongside);
  return statements;
}

/** Publishes the drafts before `seq` (docs/api.md#who-sees-what): they become readable whenever the dataset is public. */
function publishHistoryStatement(db: D1Database, datasetId: string, seq: number): D1PreparedStatement {
  return db
    .prepare("UPDATE versions SET history_public = 1 WHERE dataset_id = ? AND seq < ? AND visibility = 'private'")
    .bind(datasetId, seq);
}
