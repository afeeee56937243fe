// GET /v1/dataset/:id/:version/rows — a version's rows as JSON (docs/api.md "Querying rows"):
// a window in file order read from only the segments that hold it, or, with `where` or `order`,
// the window of the matching rows, counted in `matched`, scanned from the Parquet twin or the
// CSV segments (scan.ts) within the scan budget.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { queryScanBudget, ROWS_DEFAULT_LIMIT, ROWS_MAX_RESPONSE_CHARS } from "../config.ts";
import { cacheControlFor, readableFiles, readableTwin } from "../read/content.ts";
import { VersionParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";
import { compileQuery } from "./language/query.ts";
import { queryProblem } from "./problems.ts";
import { RowsQuerySchema, RowsResponseSchema, type RowsResponse } from "./schemas.ts";
import { answerKey, cachedAnswer, keepAnswer } from "./answer-cache.ts";
import { isScanned, queryWindow } from "./window.ts";
import { etagOf } from "../edge/etag.ts";
import { validationHookWith } from "../http/validation-hook.ts";
import { unknownParameterHint } from "./parameter-hint.ts";
import { utf8 } from "../wire/bytes.ts";

export const rowsRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/rows",
    summary: "Read or query a version's rows as JSON",
    description:
      "Without `where` and `order`, up to `limit` rows from `offset` on, in file order. With them, the matching rows in the asked order, `offset` and `limit` counting matches, and `matched` saying how many match (docs/queries.md).",
    request: { params: VersionParamsSchema, query: RowsQuerySchema },
    responses: {
      200: {
        description: "Up to `limit` rows from `offset` on (fewer at the end, or when the rows are very large)",
        content: { "application/json": { schema: RowsResponseSchema } },
      },
      400: problemResponse("Malformed id or version, invalid offset/limit, or a `where`, `columns` or `order` that cannot be read (`invalid_query` with `parameter`, `position`, `expected`, `found`)"),
      401: problemResponse("Signature present but not valid"),
      404: problemResponse("No such dataset or version visible to the caller"),
    },
  }),
  readPolicy("dataset"),
);

export function registerRows(app: OpenAPIHono<AppEnv>): void {
  app.openapi(rowsRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const { where, columns, order, ...window } = c.req.valid("query");
    const caller = c.get("caller");
    const offset = window.offset ?? 0;
    const limit = window.limit ?? ROWS_DEFAULT_LIMIT;
    // A `where` or `order` is answered from the twin when it is ready: the segments are read only if the CSV is.
    const read = where !== undefined || order !== undefined ? readableTwin : readableFiles;
    const { dataset, version, segments, twin } = await read(c.env.DB, id, versionRef, caller);
    const compiled = compileQuery({ where, columns, order }, version.schema);
    if (!compiled.ok) throw queryProblem(compiled.error);
    const query = compiled.value;
    c.header("Cache-Control", cacheControlFor(dataset, caller));
    const scanned = isScanned(query);
    const key = scanned ? answerKey("rows", version.id, query.cacheKey, { offset, limit }) : null;
    const hit = key && (await cachedAnswer(key, c.req.raw));
    if (hit) return c.json((await hit.json()) as RowsResponse, 200);
    const answer = await queryWindow(c.env.CONTENT, { version, segments, twin }, query, { offset, limit, maxChars: ROWS_MAX_RESPONSE_CHARS, budget: queryScanBudget(c.env) });
    const schema = { ...version.schema, fields: query.columns.map((column) => version.schema.fields[column]!) };
    const body: RowsResponse = {
      columns: query.columns.map((column) => version.columns[column] ?? version.schema.fields[column]!.name),
      schema,
      rows: answer.rows,
      offset,
      total: version.rowCount,
      matched: answer.matched,
      partial: answer.partial,
    };
    // The answer's text is made once, for its ETag and for the kept answer: the ETag set here
    // spares the cache middleware reading the body back to hash it (docs/edge-and-caching.md).
    const text = JSON.stringify(body);
    c.header("ETag", await etagOf(utf8(text)));
    // A partial answer depends on the budget, which an operator may change: it is not kept.
    if (key && !answer.partial) keepAnswer(c, key, text, { "Content-Type": "application/json" });
    return c.json(body, 200);
  }, validationHookWith((name, value) => unknownParameterHint(name, value, true)));
}
