// What a cached public response depends on (docs/edge-and-caching.md): the catalog's write generation for
// lists, a dataset's visibility and latest version for its own paths.

export async function catalogGeneration(db: D1Database): Promise<number> {
  const row = await db.prepare("SELECT generation FROM catalog_state WHERE id = 1").first<{ generation: number }>();
  return row?.generation ?? 0;
}

export interface DatasetCacheState {
  visibility: "public" | "private";
  latestSeq: number;
}

export async function datasetCacheState(db: D1Database, datasetId: string): Promise<DatasetCacheState | null> {
  const row = await db
    .prepare("SELECT visibility, latest_seq FROM datasets WHERE id = ?")
    .bind(datasetId)
    .first<{ visibility: "public" | "private"; latest_seq: number }>();
  return row ? { visibility: row.visibility, latestSeq: row.latest_seq } : null;
}
