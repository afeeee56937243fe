// D1 queries behind `GET /v1/dataset`: filtered, keyset-paginated lists, newest dataset first
import type { Visibility } from "../model/dataset.ts";
// with the id as tie-break (docs/api.md#lists). Keyset, not offset, so pages stay stable under inserts.

/** Which datasets the caller may see at all. */
export type ListAccess =
  | { kind: "public" } // anonymous: public datasets of every team
  | { kind: "team"; teamId: string } // signed, no team filter: everything of the key's team
  | { kind: "publicOrTeam"; teamId: string }; // signed with a team filter: public, plus private of the key's own team

/** Who may see what, and the `team` / `owner` filters; shared with search (search-db.ts). */
export interface ListFilter {
  access: ListAccess;
  teamId?: string;
  ownerId?: string;
}

export interface ListQuery extends ListFilter {
  after?: { created: string; id: string };
  limit: number;
}

export interface ListRow {
  id: string;
  name: string;
  version: string;
  owner: string;
  team: string;
  visibility: Visibility;
  created: string;
  properties: Record<string, unknown>;
  datasetCreated: string;
}

export interface ListRecord {
  id: string;
  name: string;
  version: string;
  owner: string;
  team: string;
  visibility: Visibility;
  created: string;
  properties: string;
  dataset_created: string;
}

/** WHERE clauses over `datasets d` for a filter; the one place list visibility is decided. */
export function listFilter(query: ListFilter): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const access = query.access;
  if (access.kind === "public") {
    where.push("d.visibility = 'public'");
  } else if (access.kind === "team") {
    where.push("d.team_id = ?");
    params.push(access.teamId);
  } else {
    where.push("(d.visibility = 'public' OR d.team_id = ?)");
    params.push(access.teamId);
  }
  if (query.teamId !== undefined) {
    where.push("d.team_id = ?");
    params.push(query.teamId);
  }
  if (query.ownerId !== undefined) {
    where.push("d.owner_id = ?");
    params.push(query.ownerId);
  }
  return { where, params };
}

export function toListRow(r: ListRecord): ListRow {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    owner: r.owner,
    team: r.team,
    visibility: r.visibility,
    created: r.created,
    properties: JSON.parse(r.properties) as Record<string, unknown>,
    datasetCreated: r.dataset_created,
  };
}

export async function listDatasets(db: D1Database, query: ListQuery): Promise<ListRow[]> {
  const { where, params } = listFilter(query);
  if (query.after) {
    where.push("(d.created < ? OR (d.created = ? AND d.id < ?))");
    params.push(query.after.created, query.after.created, query.after.id);
  }
  params.push(query.limit);
  const sql = `SELECT d.id, d.name, d.latest_version AS version, d.owner_id AS owner, d.team_id AS team, d.visibility,
      v.created, v.properties, d.created AS dataset_created
    FROM datasets d JOIN version_records v ON v.id = d.latest_version
    WHERE ${where.join(" AND ")}
    ORDER BY d.created DESC, d.id DESC
    LIMIT ?`;
  const { results } = await db.prepare(sql).bind(...params).all<ListRecord>();
  return results.map(toListRow);
}
