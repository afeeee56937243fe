// D1 queries behind `GET /v1/dataset/:id/versions`: a dataset's version chain, newest first,
// keyset-paginated on `seq` (the UNIQUE (dataset_id, seq) index serves both order and cursor).

export interface VersionSummaryRow {
  id: string;
  seq: number;
  created: string;
  columns: string[];
  rowCount: number;
  rawBytes: number;
  /** The stored file name (`cities.csv`); a replace may change it from one version to the next. */
  fileName: string;
}

interface VersionSummaryRecord {
  id: string;
  seq: number;
  created: string;
  columns: string;
  row_count: number;
  raw_bytes: number;
  file_name: string;
}

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
            `SELECT id, seq, created, columns, row_count, raw_bytes, file_name FROM version_records
             WHERE dataset_id = ?${published} ORDER BY seq DESC LIMIT ?`,
          )
          .bind(datasetId, page.limit)
      : db
          .prepare(
            `SELECT id, seq, created, columns, row_count, raw_bytes, file_name FROM version_records
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
  }));
}
