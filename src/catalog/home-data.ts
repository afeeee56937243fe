// What the home page shows for a query: public datasets only (anonymous scope, whatever the
// request carries), optionally searched (FTS5, src/read/search.ts) and filtered by team
// or owner, one page at a time with a link to the next.
import { MAX_SEARCH_QUERY_LENGTH } from "../config.ts";
import { searchPage, toFtsQuery } from "../read/search.ts";
import { ApiError } from "../model/errors.ts";
import { decodeCursor, encodeCursor } from "../http/cursor.ts";
import { publicTeams, versionSizes, type VersionSize } from "./store.ts";
import { listDatasets, type ListFilter, type ListRow } from "../storage/dataset-lists-db.ts";
import { CATALOG_MAX_TEAMS, CATALOG_PAGE_SIZE } from "./catalog-limits.ts";
import { homeHref } from "./format.ts";

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface HomeQuery {
  q: string;
  team: string;
  owner: string;
  cursor: string;
}

/** A list entry: the dataset's latest version, with its size when the version row was found. */
export interface HomeEntry extends ListRow {
  size: VersionSize | null;
}

export interface HomeData {
  query: HomeQuery;
  teams: string[];
  datasets: HomeEntry[];
  /** `/?…&cursor=…` of the next page, or null on the last one. */
  nextHref: string | null;
  /** Why the query could not run (shown beside the form), or null. */
  problem: string | null;
}

/** Empty form fields mean "no filter"; values are taken as typed and checked in `loadHome`. */
export function homeQuery(url: URL): HomeQuery {
  const param = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  return { q: param("q"), team: param("team"), owner: param("owner"), cursor: param("cursor") };
}

/** Why the query cannot run, in words for the person who typed it; null when it can. */
function queryProblem(query: HomeQuery): string | null {
  if (query.q.length > MAX_SEARCH_QUERY_LENGTH) return `Search for at most ${MAX_SEARCH_QUERY_LENGTH} characters.`;
  if (query.q !== "") {
    try {
      toFtsQuery(query.q);
    } catch {
      return "Search for at least one letter or digit.";
    }
  }
  if (query.team !== "" && !ID_PATTERN.test(query.team)) return "That is not a team name.";
  if (query.owner !== "" && !ID_PATTERN.test(query.owner)) return "That is not a user name.";
  return null;
}

async function page(db: D1Database, query: HomeQuery): Promise<{ rows: ListRow[]; nextCursor: string | null }> {
  const filter: ListFilter = {
    access: { kind: "public" },
    teamId: query.team === "" ? undefined : query.team,
    ownerId: query.owner === "" ? undefined : query.owner,
  };
  const cursor = query.cursor === "" ? undefined : query.cursor;
  if (query.q !== "") return searchPage(db, filter, query.q, cursor, CATALOG_PAGE_SIZE);
  const after = cursor !== undefined ? decodeCursor(cursor) : undefined;
  const rows = await listDatasets(db, { ...filter, after, limit: CATALOG_PAGE_SIZE + 1 });
  const shown = rows.slice(0, CATALOG_PAGE_SIZE);
  const last = shown[shown.length - 1];
  const more = rows.length > CATALOG_PAGE_SIZE && last !== undefined;
  return { rows: shown, nextCursor: more ? encodeCursor({ created: last.datasetCreated, id: last.id }) : null };
}

export async function loadHome(db: D1Database, query: HomeQuery): Promise<HomeData> {
  const teams = await publicTeams(db, CATALOG_MAX_TEAMS);
  const problem = queryProblem(query);
  if (problem !== null) return { query, teams, datasets: [], nextHref: null, problem };
  try {
    const { rows, nextCursor } = await page(db, query);
    const nextHref = nextCursor === null ? null : homeHref({ ...query, cursor: nextCursor });
    const sizes = await versionSizes(db, rows.map((row) => row.version));
    const datasets = rows.map((row) => ({ ...row, size: sizes.get(row.version) ?? null }));
    return { query, teams, datasets, nextHref, problem: null };
  } catch (error: unknown) {
    // The query was checked above, so what is left to reject is the cursor.
    if (error instanceof ApiError && error.code === "invalid_query") {
      return { query, teams, datasets: [], nextHref: null, problem: "That page link is no longer valid; start again from the first page." };
    }
    throw error;
  }
}
