// D1 queries only the public catalog needs (src/catalog/): the teams that have public
// datasets (its team filter). Everything else the catalog shows comes from the API's own queries.

/** Ids of teams with at least one public dataset, sorted, at most `limit` of them. */
export async function publicTeams(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT team_id FROM datasets WHERE visibility = 'public' ORDER BY team_id LIMIT ?")
    .bind(limit)
    .all<{ team_id: string }>();
  return results.map((r) => r.team_id);
}
