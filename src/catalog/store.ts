// D1 queries only the public catalog needs (src/catalog/): the teams that have public
// datasets (its team filter) and the sizes its list entries show. Everything else the catalog
// shows comes from the API's own queries.

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
