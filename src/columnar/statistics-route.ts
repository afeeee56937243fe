// GET /v1/dataset/:id/:version/statistics (docs/statistics.md): per-column statistics of the
// version, counted while its Parquet twin's parts were built and merged from their summaries
// when read (statistics-object.ts). Same visibility and caching as /schema; until the twin is
// built, 503 parquet_pending as on its file path.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { NoQuerySchema, problemResponse, VersionParamsSchema } from "../http/schemas.ts";
import { ApiError } from "../model/errors.ts";
import { cacheControlFor, readableFiles } from "../read/content.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";
import { PENDING_RETRY_SECONDS } from "./download.ts";
import { statisticsDocumentBytes } from "./statistics-object.ts";
import { askForTwin } from "../maintenance/after-commit.ts";

const ColumnStatisticsSchema = z
  .looseObject({
    name: z.string(),
    type: z.string(),
    nulls: z.number().int(),
    distinct: z.number().int(),
  })
  .openapi("ColumnStatistics", {
    description:
      "Every column: `nulls`, `distinct` (marked `distinct_approximate` past 100,000 values). Numbers, dates, datetimes and times: `min`, `max`, a 10-bin `histogram`; numbers also `mean`, `std`, `median` (`approximate` when estimated). Booleans: `true`, `false`. Strings: `min_length`, `max_length`, `mean_length`, `top` (`top_approximate` when estimated).",
  });

export const statisticsRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/statistics",
    summary: "Per-column statistics of a version",
    description: "Counted over every row when the version's Parquet file was built (docs/statistics.md); what is estimated says so.",
    request: { params: VersionParamsSchema, query: NoQuerySchema },
    responses: {
      200: {
        description: "The statistics document",
        content: { "application/json": { schema: z.object({ rows: z.number().int(), columns: z.array(ColumnStatisticsSchema) }).openapi("Statistics") } },
      },
      400: problemResponse("Malformed id or version, or any query parameter"),
      404: problemResponse("No such dataset or version visible to the caller"),
      503: problemResponse("`parquet_pending`: not computed yet (`Retry-After`), or its build failed for good"),
    },
  }),
  readPolicy("dataset"),
);

export function registerStatistics(app: OpenAPIHono<AppEnv>): void {
  app.openapi(statisticsRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const caller = c.get("caller");
    const { dataset, version, twin } = await readableFiles(c.env.DB, id, versionRef, caller);
    const document = await statisticsDocumentBytes(c.env.CONTENT, version.schema, twin);
    if (document === null) {
      // A superseded version's build may have been skipped (after-commit.ts): asked for now, 503
      // meanwhile. The latest's own message builds it; asking too would only race it.
      if (twin === null && version.id !== dataset.latestVersion) askForTwin(c.env, (work) => c.executionCtx.waitUntil(work), dataset.id, version.id);
      const failed = twin?.state === "failed";
      const detail = failed
        ? `The statistics of version ${version.id} could not be computed (${twin.error ?? "no reason recorded"}).`
        : `The statistics of version ${version.id} are being computed with its Parquet file; ask again in ${PENDING_RETRY_SECONDS} s.`;
      throw new ApiError("parquet_pending", detail, { state: failed ? "failed" : "pending" }, { "Retry-After": String(PENDING_RETRY_SECONDS) });
    }
    return new Response(document, {
      headers: { "Content-Type": "application/json", "Content-Length": String(document.length), "Cache-Control": cacheControlFor(dataset, caller) },
    }) as never;
  });
}
