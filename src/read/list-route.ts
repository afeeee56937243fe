// GET /v1/dataset — lists (docs/api.md rows 1-2, B5): scope follows the signature, `owner` and
// `team` filter, and the response shape depends on the filter.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { LIST_DEFAULT_LIMIT } from "../config.ts";
import { searchPage } from "./search.ts";
import { listItem, teamListItem } from "./shapes.ts";
import { MUTABLE_CACHE_CONTROL, PRIVATE_CACHE_CONTROL } from "../edge/cache-control.ts";
import { ApiError } from "../model/errors.ts";
import { decodeCursor, encodeCursor, nextLink } from "../http/cursor.ts";
import { listDatasets, type ListAccess, type ListRow } from "../storage/dataset-lists-db.ts";
import { isTeamMember } from "../auth/store.ts";
import { ListQuerySchema, ListResponseSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

export const listRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/",
    summary: "List datasets",
    request: { query: ListQuerySchema },
    responses: {
      200: { description: "Datasets, newest first (with `q`: best match first)", content: { "application/json": { schema: ListResponseSchema } } },
      400: problemResponse("Invalid query"),
      401: problemResponse("Signature present but not valid"),
      403: problemResponse("`owner` is outside the key's team"),
    },
  }),
  readPolicy("catalog", ["next"]),
);

export function registerList(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const caller = c.get("caller");
    let access: ListAccess;
    if (!caller) access = { kind: "public" };
    else if (query.team !== undefined) access = { kind: "publicOrTeam", teamId: caller.teamId };
    else access = { kind: "team", teamId: caller.teamId };
    if (caller && query.owner !== undefined && query.team === undefined) {
      if (!(await isTeamMember(c.env.DB, caller.teamId, query.owner))) {
        throw new ApiError("forbidden", `User ${query.owner} is not in team ${caller.teamId}.`);
      }
    }
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const filter = { access, teamId: query.team, ownerId: query.owner };
    let page: ListRow[];
    let nextCursor: string | null = null;
    if (query.q !== undefined) {
      ({ rows: page, nextCursor } = await searchPage(c.env.DB, filter, query.q, query.cursor, limit));
    } else {
      const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
      const rows = await listDatasets(c.env.DB, { ...filter, after, limit: limit + 1 });
      page = rows.slice(0, limit);
      const last = page[page.length - 1];
      if (rows.length > limit && last) nextCursor = encodeCursor({ created: last.datasetCreated, id: last.id });
    }
    const teamShape = query.team !== undefined && query.owner === undefined;
    const results = page.map((row) => (teamShape ? teamListItem(row) : listItem(row)));
    if (nextCursor !== null) c.header("Link", nextLink(c.req.url, nextCursor));
    c.header("Cache-Control", caller ? PRIVATE_CACHE_CONTROL : MUTABLE_CACHE_CONTROL);
    return c.json({ results }, 200);
  });
}
