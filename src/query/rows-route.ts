// GET /v1/dataset/:id/:version/rows — a window of a version's data rows as JSON, without
// downloading the file (docs/api.md): only the segments holding the window are read from R2.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ROWS_DEFAULT_LIMIT, ROWS_MAX_RESPONSE_CHARS } from "../config.ts";
import { readRowWindow } from "./row-reader.ts";
import { cacheControlFor, readableContent } from "./content.ts";
import { typedRow } from "../schema/cast.ts";
import { openSegment } from "../storage/segment-store.ts";
import { RowsQuerySchema, RowsResponseSchema } from "./reader-schemas.ts";
import { VersionParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

export const rowsRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/rows",
    summary: "Read a version's rows as JSON",
    request: { params: VersionParamsSchema, query: RowsQuerySchema },
    responses: {
      200: {
        description: "Up to `limit` data rows from `offset` on (fewer at the end, or when the rows are very large)",
        content: { "application/json": { schema: RowsResponseSchema } },
      },
      400: problemResponse("Malformed id or version, or invalid offset/limit"),
      401: problemResponse("Signature present but not valid"),
      404: problemResponse("No such dataset or version visible to the caller"),
    },
  }),
  readPolicy("dataset"),
);

export function registerRows(app: OpenAPIHono<AppEnv>): void {
  app.openapi(rowsRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const query = c.req.valid("query");
    const caller = c.get("caller");
    const offset = query.offset ?? 0;
    const limit = query.limit ?? ROWS_DEFAULT_LIMIT;
    const { dataset, version, segments } = await readableContent(c.env.DB, id, versionRef, caller);
    const rows =
      offset < version.rowCount
        ? await readRowWindow(segments, (key, range) => openSegment(c.env.CONTENT, key, range), {
            offset,
            limit,
            maxChars: ROWS_MAX_RESPONSE_CHARS,
          })
        : [];
    c.header("Cache-Control", cacheControlFor(dataset, caller));
    const missing = new Set(version.schema.missingValues);
    const typed = rows.map((cells) => typedRow(version.schema, missing, cells));
    return c.json({ columns: version.columns, schema: version.schema, rows: typed, offset, total: version.rowCount }, 200);
  });
}
