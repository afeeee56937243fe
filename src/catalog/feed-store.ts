// D1 queries behind `GET /catalog.jsonld` (src/catalog/feed.ts): for one page of public datasets,
// what each latest version's distributions weigh, and each dataset's newest published versions.
// Two round trips a page, however many datasets it holds.

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
