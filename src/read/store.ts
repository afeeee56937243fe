// A read's D1 queries. getVersionContent is a read's whole D1 need in one round trip: the
// dataset, the version a path names (an id or `latest`), and, for content reads, its segments
// and their parts, as one batch, so a public read that misses the edge cache waits on D1 once
// (docs/edge-and-caching.md); a query answered from the Parquet twin leaves the segments out,
// and getVersionSegments reads them if it needs them after all. listVersions serves `GET /v1/dataset/:id/versions`: the version
// chain newest first, keyset-paginated on `seq` (the UNIQUE (dataset_id, seq) index serves both
// order and cursor).
import { toDataset, toVersion, type DatasetRecord, type VersionRecord } from "../storage/datasets-db.ts";
import { partsByKey, type PartRecord } from "../storage/segment-parts-db.ts";
import type { DatasetRow, SegmentRow, StoredVersionRow } from "../model/dataset.ts";

export interface VersionContent {
  dataset: DatasetRow | null;
  /** The named version of this dataset, or null when it has none by that id. */
  version: StoredVersionRow | null;
  /** In list order, with their parts; empty unless asked for. */
  segments: SegmentRow[];
  /** The version's Parquet twin when asked for: null while it is pending. */
  twin: TwinRow | null;
}

/** A version's Parquet twin as a download needs it (docs/storage-protocol.md "The Parquet twin"). */
export interface TwinRow {
  state: "ready" | "failed";
  error: string | null;
  tailKey: string | null;
  tailBytes: number;
  /** After the tail in its object: the merged statistics summary, then the statistics document (twins built before statistics were merged on read; 0 since). */
  summaryBytes: number;
  documentBytes: number;
  fileBytes: number;
  /** The parts' objects in file order, how many bytes of each the file holds (their row groups), then the metadata and the rows' statistics summary after them. */
  parts: { key: string; dataBytes: number; metaBytes: number; summaryBytes: number }[];
}

interface TwinRecord {
  state: "ready" | "failed";
  error: string | null;
  tail_key: string | null;
  tail_bytes: number | null;
  summary_bytes: number | null;
  document_bytes: number | null;
  file_bytes: number | null;
}

interface SegmentRecord {
  key: string;
  compressed_bytes: number;
  raw_bytes: number;
  row_count: number;
}

/** The version's segments in list order, then their parts; `target` is the SQL of the version id. */
function segmentStatements(db: D1Database, target: string): D1PreparedStatement[] {
  return [
    db.prepare(
      `SELECT s.key, s.compressed_bytes, s.raw_bytes, s.row_count
       FROM version_segments vs JOIN segments s ON s.key = vs.segment_key
       WHERE vs.version_id = ${target}
       ORDER BY vs.position`,
    ),
    db.prepare(
      `SELECT p.segment_key, p.compressed_offset, p.compressed_bytes, p.raw_bytes, p.row_count
       FROM segment_parts p
       WHERE p.segment_key IN (SELECT segment_key FROM version_segments WHERE version_id = ${target})
       ORDER BY p.segment_key, p.part`,
    ),
  ];
}

function segmentList(segmentRows: D1Result | undefined, partRows: D1Result | undefined): SegmentRow[] {
  const parts = partsByKey((partRows?.results ?? []) as PartRecord[]);
  return ((segmentRows?.results ?? []) as SegmentRecord[]).map((r): SegmentRow => {
    const segment: SegmentRow = { key: r.key, compressedBytes: r.compressed_bytes, rawBytes: r.raw_bytes, rowCount: r.row_count };
    const list = parts.get(r.key);
    return list ? { ...segment, parts: list } : segment;
  });
}

/**
 * The segments of version `versionId` with their parts, for a read that found it with
 * getVersionContent without them (a query the Parquet twin may answer alone): one more round trip.
 */
export async function getVersionSegments(db: D1Database, versionId: string): Promise<SegmentRow[]> {
  const [segmentRows, partRows] = await db.batch(segmentStatements(db, "?1").map((statement) => statement.bind(versionId)));
  return segmentList(segmentRows, partRows);
}

/** `versionRef`: a version id or `latest`. `withSegments`: also the version's segment list; `withTwin`: its Parquet twin. */
export async function getVersionContent(db: D1Database, datasetId: string, versionRef: string, withSegments: boolean, withTwin = false): Promise<VersionContent> {
  // ?1 the dataset, ?2 the version id (unused for `latest`).
  const target = versionRef === "latest" ? "(SELECT latest_version FROM datasets WHERE id = ?1)" : "?2";
  const bind = (statement: D1PreparedStatement) => (versionRef === "latest" ? statement.bind(datasetId) : statement.bind(datasetId, versionRef));
  const statements = [
    db.prepare("SELECT * FROM datasets WHERE id = ?1").bind(datasetId),
    bind(db.prepare(`SELECT * FROM version_records WHERE dataset_id = ?1 AND id = ${target}`)),
  ];
  if (withSegments) statements.push(...segmentStatements(db, target).map(bind));
  if (withTwin) {
    statements.push(
      bind(db.prepare(`SELECT state, error, tail_key, tail_bytes, summary_bytes, document_bytes, file_bytes FROM version_parquet WHERE version_id = ${target}`)),
      bind(
        db.prepare(
          `SELECT p.key, p.data_bytes, p.meta_bytes, p.summary_bytes FROM version_parquet_parts vp JOIN parquet_parts p ON p.key = vp.part_key
           WHERE vp.version_id = ${target} ORDER BY vp.position`,
        ),
      ),
    );
  }
  const results = await db.batch(statements);
  const [datasets, versions] = results;
  const [segmentRows, partRows] = withSegments ? results.slice(2) : [];
  const [twinRows, twinPartRows] = withTwin ? results.slice(withSegments ? 4 : 2) : [];
  const dataset = (datasets?.results[0] as DatasetRecord | undefined) ?? null;
  const version = (versions?.results[0] as VersionRecord | undefined) ?? null;
  const segments = segmentList(segmentRows, partRows);
  const twinRecord = (twinRows?.results[0] as TwinRecord | undefined) ?? null;
  const twin: TwinRow | null = twinRecord && {
    state: twinRecord.state,
    error: twinRecord.error,
    tailKey: twinRecord.tail_key,
    tailBytes: twinRecord.tail_bytes ?? 0,
    summaryBytes: twinRecord.summary_bytes ?? 0,
    documentBytes: twinRecord.document_bytes ?? 0,
    fileBytes: twinRecord.file_bytes ?? 0,
    parts: ((twinPartRows?.results ?? []) as { key: string; data_bytes: number; meta_bytes: number; summary_bytes: number }[]).map((r) => ({
      key: r.key,
      dataBytes: r.data_bytes,
      metaBytes: r.meta_bytes,
      summaryBytes: r.summary_bytes,
    })),
  };
  return { dataset: dataset ? toDataset(dataset) : null, version: version ? toVersion(version) : null, segments, twin };
}

export interface VersionSummaryRow {
  id: string;
  seq: number;
  created: string;
  columns: string[];
  rowCount: number;
  rawBytes: number;
  /** The stored file name (`cities.csv`); a replace may change it from one version to the next. */
  fileName: string;
  /** Its Parquet twin: built, still to build, or failed for good (parquetError says why). */
  parquet: "ready" | "pending" | "failed";
  parquetError: string | null;
}

interface VersionSummaryRecord {
  id: string;
  seq: number;
  created: string;
  columns: string;
  row_count: number;
  raw_bytes: number;
  file_name: string;
  parquet_state: "ready" | "failed" | null;
  parquet_error: string | null;
}

const SUMMARY_COLUMNS = `id, seq, created, columns, row_count, raw_bytes, file_name,
  (SELECT state FROM version_parquet p WHERE p.version_id = version_records.id) AS parquet_state,
  (SELECT error FROM version_parquet p WHERE p.version_id = version_records.id) AS parquet_error`;

/** Versions written while the dataset was public, or published later by `"history": "public"`. */
const PUBLISHED = "(visibility = 'public' OR history_public = 1)";

/**
 * Versions of one dataset with `seq` below `beforeSeq` (all when absent), highest `seq` first.
 * `publishedOnly` leaves the drafts out (docs/api.md#who-sees-what): what anyone outside the team may see.
 */
export async function listVersions(
  db: D1Database,
  datasetId: string,
  page: { beforeSeq?: number; limit: number; publishedOnly: boolean },
): Promise<VersionSummaryRow[]> {
  const published = page.publishedOnly ? ` AND ${PUBLISHED}` : "";
  const statement =
    page.beforeSeq === undefined
      ? db
          .prepare(
            `SELECT ${SUMMARY_COLUMNS} FROM version_records
             WHERE dataset_id = ?${published} ORDER BY seq DESC LIMIT ?`,
          )
          .bind(datasetId, page.limit)
      : db
          .prepare(
            `SELECT ${SUMMARY_COLUMNS} FROM version_records
             WHERE dataset_id = ? AND seq < ?${published} ORDER BY seq DESC LIMIT ?`,
          )
          .bind(datasetId, page.beforeSeq, page.limit);
  const { results } = await statement.all<VersionSummaryRecord>();
  return results.map((r) => ({
    id: r.id,
    seq: r.seq,
    created: r.created,
    columns: JSON.parse(r.columns) as string[],
    rowCount: r.row_count,
    rawBytes: r.raw_bytes,
    fileName: r.file_name,
    parquet: r.parquet_state ?? "pending",
    parquetError: r.parquet_error,
  }));
}
