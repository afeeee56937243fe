// GET /v1/dataset/:id/:version/rows — a version's rows as JSON (docs/api.md "Querying rows"):
// a window in file order read from only the segments that hold it, or, with `where` or `order`,
// the window of the matching rows, counted in `matched`, scanned from the Parquet twin or the
// CSV segments (scan.ts) within the scan budget.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { queryScanBudget, ROWS_DEFAULT_LIMIT, ROWS_MAX_RESPONSE_CHARS } from "../config.ts";
import { readRowWindow } from "../read/row-reader.ts";
import { cacheControlFor, readableFiles } from "../read/content.ts";
import { typedRow, type Cell } from "../schema/cast.ts";
import { openSegment } from "../storage/segment-store.ts";
import { VersionParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";
import { compileQuery, type CompiledQuery } from "./language/query.ts";
import { queryProblem } from "./problems.ts";
import { scanSource } from "./plan.ts";
import { answerWindow, project, type WindowAnswer, type WindowRequest } from "./scan.ts";
import { fillFromSegments } from "./fill-rows.ts";
import type { TwinRow } from "../read/store.ts";
import { RowsQuerySchema, RowsResponseSchema, type RowsResponse } from "./schemas.ts";
import { answerKey, cachedAnswer, keepAnswer } from "./answer-cache.ts";
import type { SegmentRow, StoredVersionRow } from "../model/dataset.ts";

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

/** Rows in file order from `offset` (no `where`, no `order`): only the segment parts holding them are read. */
async function fileWindow(bucket: R2Bucket, version: StoredVersionRow, segments: readonly SegmentRow[], query: CompiledQuery, offset: number, limit: number): Promise<WindowAnswer> {
  const rows =
    offset < version.rowCount ? await readRowWindow(segments, (key, range) => openSegment(bucket, key, range), { offset, limit, maxChars: ROWS_MAX_RESPONSE_CHARS }) : [];
  const missing = new Set(version.schema.missingValues);
  const typed: Cell[][] = rows.map((cells) => project(query, typedRow(version.schema, missing, cells)));
  return { rows: typed, matched: version.rowCount, partial: false, scanned: 0, positions: typed.map((_, i) => offset + i) };
}

/** The window of the matching rows, scanned (plan.ts); cells the twin keeps as instants come from the CSV. */
async function scannedWindow(bucket: R2Bucket, version: StoredVersionRow, segments: readonly SegmentRow[], twin: TwinRow | null, query: CompiledQuery, request: WindowRequest): Promise<WindowAnswer> {
  const source = await scanSource(bucket, version, segments, twin, query, true);
  const answer = await answerWindow(source.pieces, query, request, source.read);
  await fillFromSegments(bucket, version.schema, segments, query, source.fill, answer.rows, answer.positions);
  return answer;
}

export function registerRows(app: OpenAPIHono<AppEnv>): void {
  app.openapi(rowsRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const { where, columns, order, ...window } = c.req.valid("query");
    const caller = c.get("caller");
    const offset = window.offset ?? 0;
    const limit = window.limit ?? ROWS_DEFAULT_LIMIT;
    const { dataset, version, segments, twin } = await readableFiles(c.env.DB, id, versionRef, caller);
    const compiled = compileQuery({ where, columns, order }, version.schema);
    if (!compiled.ok) throw queryProblem(compiled.error);
    const query = compiled.value;
    c.header("Cache-Control", cacheControlFor(dataset, caller));
    const scanned = query.where !== null || query.order.length > 0;
    const key = scanned ? answerKey("rows", version.id, query.cacheKey, { offset, limit }) : null;
    const hit = key && (await cachedAnswer(key, c.req.raw));
    if (hit) return c.json((await hit.json()) as RowsResponse, 200);
    const answer = scanned ? await scannedWindow(c.env.CONTENT, version, segments, twin, query, { offset, limit, maxChars: ROWS_MAX_RESPONSE_CHARS, budget: queryScanBudget(c.env) }) : await fileWindow(c.env.CONTENT, version, segments, query, offset, limit);
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
    // A partial answer depends on the budget, which an operator may change: it is not kept.
    if (key && !answer.partial) keepAnswer(c, key, JSON.stringify(body), { "Content-Type": "application/json" });
    return c.json(body, 200);
  });
}
