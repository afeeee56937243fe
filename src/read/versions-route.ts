// GET /v1/dataset/:id/versions — a dataset's versions, newest first, paginated like every list
// (docs/api.md, docs/api.md#lists). Visible exactly when the dataset is; outside its team, drafts are left out (docs/api.md#who-sees-what).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { LIST_DEFAULT_LIMIT } from "../config.ts";
import { readableDataset, cacheControlFor } from "./content.ts";
import { isTeamMember } from "../model/access.ts";
import { versionSummary } from "./shapes.ts";
import { decodeSeqCursor, encodeSeqCursor, nextLink } from "../http/cursor.ts";
import { listVersions } from "./store.ts";
import { VersionsQuerySchema, VersionsResponseSchema } from "./reader-schemas.ts";
import { IdParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

export const versionsRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/versions",
    summary: "List a dataset's versions",
    description: "Newest first. Outside the dataset's team, drafts (versions written while it was private and never published with `\"history\": \"public\"`) are left out.",
    request: { params: IdParamsSchema, query: VersionsQuerySchema },
    responses: {
      200: { description: "Versions, newest first", content: { "application/json": { schema: VersionsResponseSchema } } },
      400: problemResponse("Malformed id or invalid query"),
      401: problemResponse("Signature present but not valid"),
      404: problemResponse("No such dataset visible to the caller"),
    },
  }),
  readPolicy("dataset", ["next"]),
);

export function registerVersions(app: OpenAPIHono<AppEnv>): void {
  app.openapi(versionsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const caller = c.get("caller");
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const beforeSeq = query.cursor !== undefined ? decodeSeqCursor(query.cursor) : undefined;
    const dataset = await readableDataset(c.env.DB, id, caller);
    const rows = await listVersions(c.env.DB, dataset.id, { beforeSeq, limit: limit + 1, publishedOnly: !isTeamMember(dataset, caller) });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    if (rows.length > limit && last) c.header("Link", nextLink(c.req.url, encodeSeqCursor(last.seq)));
    c.header("Cache-Control", cacheControlFor(dataset, caller));
    return c.json({ results: page.map(versionSummary) }, 200);
  });
}
