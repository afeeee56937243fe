// The catalog's reads that no other flow makes: the home page's team list and the DCAT feed's
// page of public datasets with their versions (docs/catalog.md).

/** Ids of teams with at least one public dataset, sorted, at most `limit` of them. */
export async function publicTeams(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT team_id FROM datasets WHERE visibility = 'public' ORDER BY team_id LIMIT ?")
    .bind(limit)
    .all<{ team_id: string }>();
  return results.map((r) => r.team_id);
}

/** What a catalog list entry shows of a version's content: data rows, columns, CSV bytes. */
export interface VersionSize {
  rows: number;
  columns: number;
  bytes: number;
}

/** Sizes of the given versions (one page of a list), read from what each commit stored. */
export async function versionSizes(db: D1Database, versionIds: string[]): Promise<Map<string, VersionSize>> {
  const sizes = new Map<string, VersionSize>();
  if (versionIds.length === 0) return sizes;
  const { results } = await db
    .prepare(
      `SELECT id, row_count, raw_bytes, json_array_length(columns) AS column_count FROM version_records WHERE id IN (${versionIds.map(() => "?").join(", ")})`,
    )
    .bind(...versionIds)
    .all<{ id: string; row_count: number; raw_bytes: number; column_count: number }>();
  for (const r of results) sizes.set(r.id, { rows: r.row_count, columns: r.column_count, bytes: r.raw_bytes });
  return sizes;
}

/** What the feed says about a dataset's latest version's content. */
export interface FeedContent {
  fileName: string;
  columns: string[];
  rowCount: number;
  rawBytes: number;
  eol: "\n" | "\r\n";
  /** Sum of the segments' compressed bytes: the `.gz` download is these plus one gzip header and trailer. */
  compressedBytes: number;
}

export async function feedContents(db: D1Database, versionIds: string[]): Promise<Map<string, FeedContent>> {
  const contents = new Map<string, FeedContent>();
  if (versionIds.length === 0) return contents;
  const { results } = await db
    .prepare(
      `SELECT v.id, v.file_name, v.columns, v.row_count, v.raw_bytes, v.eol,
         (SELECT COALESCE(SUM(s.compressed_bytes), 0) FROM version_segments vs JOIN segments s ON s.key = vs.segment_key
          WHERE vs.version_id = v.id) AS compressed_bytes
       FROM version_records v WHERE v.id IN (${versionIds.map(() => "?").join(", ")})`,
    )
    .bind(...versionIds)
    .all<{ id: string; file_name: string; columns: string; row_count: number; raw_bytes: number; eol: string; compressed_bytes: number }>();
  for (const r of results) {
    contents.set(r.id, {
      fileName: r.file_name,
      columns: JSON.parse(r.columns) as string[],
      rowCount: r.row_count,
      rawBytes: r.raw_bytes,
      eol: r.eol === "\r\n" ? "\r\n" : "\n",
      compressedBytes: r.compressed_bytes,
    });
  }
  return contents;
}

export interface PublishedVersion {
  id: string;
  created: string;
}

/**
 * The newest `perDataset` published versions of each dataset (docs/api.md#who-sees-what: written while public, or
 * published later by `"history": "public"`), newest first; drafts are never among them. One
 * statement per dataset in one batch: each walks the (dataset_id, seq) index from the newest and
 * stops after `perDataset`, however long the dataset's history.
 */
export async function publishedVersions(db: D1Database, datasetIds: string[], perDataset: number): Promise<Map<string, PublishedVersion[]>> {
  const versions = new Map<string, PublishedVersion[]>();
  if (datasetIds.length === 0) return versions;
  const statement = db.prepare(
    `SELECT id, created FROM versions
     WHERE dataset_id = ? AND (visibility = 'public' OR history_public = 1)
     ORDER BY seq DESC LIMIT ?`,
  );
  const results = await db.batch<{ id: string; created: string }>(datasetIds.map((id) => statement.bind(id, perDataset)));
  datasetIds.forEach((id, i) => versions.set(id, (results[i]?.results ?? []).map((r) => ({ id: r.id, created: r.created }))));
  return versions;
}
