// `GET /catalog.jsonld`: the public catalog as a DCAT 3 feed for harvesters (docs/catalog.md#catalog-metadata), one Hydra
// page at a time, newest dataset first, in the anonymous scope whatever the request carries (as
// the HTML catalog): a private dataset or a draft version is never in it.
import { ApiError } from "../model/errors.ts";
import { decodeCursor, encodeCursor } from "../http/cursor.ts";
import { type CatalogEntry, dcatCatalogPage } from "../metadata/dcat.ts";
import { feedContents, publishedVersions } from "./store.ts";
import { listDatasets } from "../storage/dataset-lists-db.ts";
import { joinedGzipLength } from "../wire/gzip-join.ts";
import { FEED_MAX_PAGE_SIZE, FEED_PAGE_SIZE, FEED_VERSIONS_PER_DATASET } from "./catalog-limits.ts";

export const FEED_PATH = "/catalog.jsonld";

export interface FeedQuery {
  limit: number | null;
  cursor: string | null;
}

/** `limit` (1-100) and `cursor` only; anything else is a 400, as on the API's lists (docs/edge-and-caching.md). */
export function feedQuery(url: URL): FeedQuery {
  for (const name of url.searchParams.keys()) {
    if (name !== "limit" && name !== "cursor") throw new ApiError("invalid_query", `Unknown query parameter ${name}; this feed takes limit and cursor.`);
  }
  const limit = url.searchParams.get("limit");
  const cursor = url.searchParams.get("cursor");
  if (limit !== null && (!/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > FEED_MAX_PAGE_SIZE)) {
    throw new ApiError("invalid_query", `limit must be a whole number from 1 to ${FEED_MAX_PAGE_SIZE}.`);
  }
  if (cursor !== null && (cursor === "" || cursor.length > 512)) throw new ApiError("invalid_query", "The cursor is not one this feed issued.");
  return { limit: limit === null ? null : Number(limit), cursor };
}

function pageUrl(origin: string, limit: number | null, cursor: string | null): string {
  const params = new URLSearchParams();
  if (limit !== null) params.set("limit", String(limit));
  if (cursor !== null) params.set("cursor", cursor);
  const search = params.toString();
  return `${origin}${FEED_PATH}${search === "" ? "" : `?${search}`}`;
}

export async function loadCatalogFeed(db: D1Database, origin: string, query: FeedQuery) {
  const size = query.limit ?? FEED_PAGE_SIZE;
  const after = query.cursor !== null ? decodeCursor(query.cursor) : undefined;
  const rows = await listDatasets(db, { access: { kind: "public" }, after, limit: size + 1 });
  const shown = rows.slice(0, size);
  const [contents, versions] = await Promise.all([
    feedContents(db, shown.map((row) => row.version)),
    publishedVersions(db, shown.map((row) => row.id), FEED_VERSIONS_PER_DATASET),
  ]);
  const entries: CatalogEntry[] = [];
  for (const row of shown) {
    const content = contents.get(row.version);
    // A dataset deleted between the two reads is left out, not described half.
    if (!content) continue;
    entries.push({
      record: {
        id: row.id,
        team: row.team,
        owner: row.owner,
        issued: row.datasetCreated,
        version: row.version,
        created: row.created,
        name: row.name,
        properties: row.properties,
        fileName: content.fileName,
        columns: content.columns,
        rows: content.rowCount,
        csvBytes: content.rawBytes,
        gzipBytes: joinedGzipLength([content.compressedBytes]),
        eol: content.eol,
      },
      versions: versions.get(row.id) ?? [],
    });
  }
  const last = shown[shown.length - 1];
  const next = rows.length > size && last !== undefined ? encodeCursor({ created: last.datasetCreated, id: last.id }) : null;
  return dcatCatalogPage({
    origin,
    catalogUrl: `${origin}${FEED_PATH}`,
    pageUrl: pageUrl(origin, query.limit, query.cursor),
    firstUrl: pageUrl(origin, query.limit, null),
    nextUrl: next === null ? null : pageUrl(origin, query.limit, next),
    entries,
  });
}
