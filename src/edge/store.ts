// The edge's D1 reads and writes. What a cached public response depends on
// (docs/edge-and-caching.md): the catalog's write generation for lists, a dataset's visibility and
// latest version for its own paths. And the purge outbox (migrations/0009_edge.sql): the oldest
// pending tags, and removal of those whose purge went through and were not enqueued again meanwhile.

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

export interface PendingPurge {
  tag: string;
  seq: number;
  enqueued: number;
}

export async function pendingPurges(db: D1Database, limit: number): Promise<PendingPurge[]> {
  const { results } = await db
    .prepare("SELECT tag, seq, enqueued FROM purge_outbox ORDER BY enqueued, tag LIMIT ?")
    .bind(limit)
    .all<PendingPurge>();
  return results;
}

/** Deletes each row still at the `seq` that was purged; a re-enqueued tag stays for the next run. */
export async function completePurges(db: D1Database, purged: PendingPurge[]): Promise<void> {
  if (purged.length === 0) return;
  await db.batch(purged.map((p) => db.prepare("DELETE FROM purge_outbox WHERE tag = ? AND seq = ?").bind(p.tag, p.seq)));
}

export async function failedPurges(db: D1Database, tags: string[]): Promise<void> {
  if (tags.length === 0) return;
  await db.batch(tags.map((tag) => db.prepare("UPDATE purge_outbox SET attempts = attempts + 1 WHERE tag = ?").bind(tag)));
}

/** Tags waiting and the age of the oldest, for the drain's log line. */
export async function outboxBacklog(db: D1Database, nowSeconds: number): Promise<{ pending: number; oldestSeconds: number }> {
  const row = await db.prepare("SELECT COUNT(*) AS pending, MIN(enqueued) AS oldest FROM purge_outbox").first<{ pending: number; oldest: number | null }>();
  return { pending: row?.pending ?? 0, oldestSeconds: row?.oldest == null ? 0 : Math.max(0, nowSeconds - row.oldest) };
}
