// D1 queries only the public catalog needs (src/catalog/): the teams that have public
// datasets (the team filter) and the file names behind a page of version history (its
// download links). Everything else the catalog shows comes from the API's own queries.

/** Ids of teams with at least one public dataset, sorted, at most `limit` of them. */
export async function publicTeams(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT team_id FROM datasets WHERE visibility = 'public' ORDER BY team_id LIMIT ?")
    .bind(limit)
    .all<{ team_id: string }>();
  return results.map((r) => r.team_id);
}

/** The stored file name of each of a dataset's versions in `versionIds` (a replace may rename). */
export async function versionFileNames(db: D1Database, datasetId: string, versionIds: readonly string[]): Promise<Map<string, string>> {
  if (versionIds.length === 0) return new Map();
  const marks = versionIds.map(() => "?").join(", ");
  const { results } = await db
    .prepare(`SELECT id, file_name FROM versions WHERE dataset_id = ? AND id IN (${marks})`)
    .bind(datasetId, ...versionIds)
    .all<{ id: string; file_name: string }>();
  return new Map(results.map((r) => [r.id, r.file_name]));
}
