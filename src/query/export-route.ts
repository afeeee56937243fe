// GET /v1/dataset/:id/:version/rows.csv — every row a query matches, as a CSV download (docs/api.md
// "Querying rows"), streamed batch by batch so memory stays flat. The plan is checked against
// the scan budget before the first byte: a query that cannot finish is 413 query_too_large, never
// a truncated file. With `order`, each pass keeps QUERY_EXPORT_SORT_ROWS rows and the next pass
// reads again from where it stopped.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { QUERY_EXPORT_SORT_ROWS, queryScanBudget } from "../config.ts";
import { cacheControlFor, readableFiles } from "../read/content.ts";
import { VersionParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";
import { ApiError } from "../model/errors.ts";
import type { Cell } from "../schema/cast.ts";
import type { Ranked } from "./language/ordering.ts";
import { compileQuery, type CompiledQuery } from "./language/query.ts";
import { csvLine } from "./csv-out.ts";
import { concatBytes } from "../wire/deflate-segment.ts";
import { queryProblem } from "./problems.ts";
import { scanSource } from "./plan.ts";
import { matchingRows, orderedPass, planCost, project, type ScanPiece } from "./scan.ts";
import { RowsCsvQuerySchema } from "./schemas.ts";
import { answerKey, cachedAnswer, keepAnswer } from "./answer-cache.ts";
import { validationHookWith } from "../http/validation-hook.ts";
import { unknownParameterHint } from "./parameter-hint.ts";

/** Bytes of CSV text gathered before a chunk is handed to the response. */
const CHUNK_CHARS = 64 * 1024;
/** Exports up to this size are kept whole in the answer cache (answer-cache.ts); larger ones are streamed only. */
const KEPT_ANSWER_BYTES = 8 * 1024 * 1024;

export const rowsCsvRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/rows.csv",
    summary: "Download the rows a query matches as CSV",
    description: "Every row `where` matches (all rows without one), with the `columns` asked, in the `order` asked, as one CSV file with its header first (docs/queries.md).",
    request: { params: VersionParamsSchema, query: RowsCsvQuerySchema },
    responses: {
      200: { description: "The matching rows as CSV, header first", content: { "text/csv": { schema: { type: "string" } } } },
      400: problemResponse("Malformed id or version, or a `where`, `columns` or `order` that cannot be read (`invalid_query` with `parameter`, `position`, `expected`, `found`)"),
      401: problemResponse("Signature present but not valid"),
      404: problemResponse("No such dataset or version visible to the caller"),
      413: problemResponse("`query_too_large`: the query would read more than the scan budget; nothing was sent"),
    },
  }),
  readPolicy("dataset"),
);

function tooLarge(cost: number, budget: number): ApiError {
  return new ApiError(
    "query_too_large",
    `This query would read ${cost} bytes, more than the ${budget} one query may read. Narrow it with a where that rules out more rows, fewer columns, or no order; or download the whole file (.csv.gz or .parquet).`,
    { budget, cost },
  );
}

/** `cities.csv` → `cities-rows.csv`; the stored name is `[A-Za-z0-9._-]` only. */
export function exportName(fileName: string): string {
  return `${fileName.replace(/\.csv$/i, "")}-rows.csv`;
}

async function sortedBatches(pieces: readonly ScanPiece[], query: CompiledQuery, first: Ranked<Cell[]>[]): Promise<AsyncGenerator<Cell[][]>> {
  return (async function* () {
    let batch = first;
    while (batch.length > 0) {
      yield batch.map((item) => project(query, item.item));
      if (batch.length < QUERY_EXPORT_SORT_ROWS) return;
      batch = (await orderedPass(pieces, query, QUERY_EXPORT_SORT_ROWS, batch.at(-1)!)).rows;
    }
  })();
}

/** A strong ETag for the answer: the version and the normalised query name it. */
async function exportTag(versionId: string, cacheKey: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${versionId}\n${cacheKey}`));
  return `"${[...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/**
 * The CSV text, pulled batch by batch as the client reads. An answer of at most
 * KEPT_ANSWER_BYTES is also handed to `keep` once whole; a larger one is not kept, so memory
 * never holds more than that.
 */
function csvStream(header: string, batches: AsyncGenerator<Cell[][]>, keep: (bytes: Uint8Array) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending = header;
  let kept: Uint8Array[] | null = [];
  let keptBytes = 0;
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
    const bytes = encoder.encode(text);
    controller.enqueue(bytes);
    if (kept === null) return;
    keptBytes += bytes.length;
    if (keptBytes > KEPT_ANSWER_BYTES) kept = null;
    else kept.push(bytes);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (pending.length < CHUNK_CHARS) {
        const { done, value } = await batches.next();
        if (done) {
          if (pending.length > 0) send(controller, pending);
          controller.close();
          if (kept !== null) keep(concatBytes(kept));
          return;
        }
        for (const row of value) pending += csvLine(row);
      }
      send(controller, pending);
      pending = "";
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}

export function registerRowsCsv(app: OpenAPIHono<AppEnv>): void {
  app.openapi(rowsCsvRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const caller = c.get("caller");
    const { dataset, version, segments, twin } = await readableFiles(c.env.DB, id, versionRef, caller);
    const compiled = compileQuery(c.req.valid("query"), version.schema);
    if (!compiled.ok) throw queryProblem(compiled.error);
    const query = compiled.value;
    const headers = {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${exportName(version.fileName)}"`,
      "Cache-Control": cacheControlFor(dataset, caller),
      ETag: await exportTag(version.id, query.cacheKey),
    };
    const key = answerKey("rows.csv", version.id, query.cacheKey);
    const hit = await cachedAnswer(key, c.req.raw);
    if (hit) return new Response(hit.body, { status: 200, headers });
    const { pieces } = await scanSource(c.env.CONTENT, version, segments, twin, query);
    const budget = queryScanBudget(c.env);
    const cost = planCost(pieces, query.needed);
    if (cost > budget) throw tooLarge(cost, budget);
    let batches: AsyncGenerator<Cell[][]>;
    if (query.order.length === 0) batches = matchingRows(pieces, query);
    else {
      // The first pass runs before the answer starts: it counts the matches, so the passes a
      // sorted export needs are known before the first byte.
      const first = await orderedPass(pieces, query, QUERY_EXPORT_SORT_ROWS, null);
      const passes = Math.max(1, Math.ceil(first.matched / QUERY_EXPORT_SORT_ROWS));
      if (cost * passes > budget) throw tooLarge(cost * passes, budget);
      batches = await sortedBatches(pieces, query, first.rows);
    }
    const header = csvLine(query.columns.map((column) => version.columns[column] ?? version.schema.fields[column]!.name));
    const answer = csvStream(header, batches, (bytes) => keepAnswer(c, key, bytes, { "Content-Type": headers["Content-Type"] }));
    return new Response(answer, { status: 200, headers });
  }, validationHookWith((name, value) => unknownParameterHint(name, value, false)));
}
