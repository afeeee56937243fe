// POST /v1/dataset/:id — append data rows as a new version (SPEC A row 5, B2, B7): one new
// segment plus the parent's list, so the cost depends on the appended bytes only.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { writableDataset } from "../datasets/access.ts";
import { AppendPlan, commitChange, latestState } from "../datasets/commit.ts";
import { ingestCsv } from "../datasets/ingest.ts";
import { appendedRecord } from "../datasets/shapes.ts";
import { readUpload } from "../datasets/upload.ts";
import { ApiError } from "../errors.ts";
import { compactIfLong } from "../maintenance/compaction.ts";
import { newSegmentKey } from "../storage/segment-store.ts";
import { AppendedSchema, IdParamsSchema, MultipartBodyDoc, problemResponse } from "./schemas.ts";
import { PendingObjects, ifMatchVersion, requireCaller } from "./write-context.ts";

export const appendRoute = createRoute({
  method: "post",
  path: "/{id}",
  summary: "Append rows (a new version)",
  request: { params: IdParamsSchema, body: { ...MultipartBodyDoc, required: true } },
  responses: {
    201: { description: "The new version; Location names it", content: { "application/json": { schema: AppendedSchema } } },
    400: problemResponse("Malformed request"),
    401: problemResponse("Not signed, or the signature does not verify"),
    403: problemResponse("Dataset of another team"),
    404: problemResponse("No such dataset visible to the caller"),
    412: problemResponse("If-Match is not the latest version"),
    413: problemResponse("Too large"),
    415: problemResponse("Not multipart/form-data"),
    422: problemResponse("Rows do not fit the dataset"),
  },
});

export function registerAppend(app: OpenAPIHono<AppEnv>): void {
  app.openapi(appendRoute, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const ifMatch = ifMatchVersion(c);
    await writableDataset(c.env.DB, id, caller);
    const seen = await latestState(c.env.DB, id);
    if (!seen) throw new ApiError("not_found", `No dataset ${id}.`);
    const limits = limitsFrom(c.env);
    const pending = new PendingObjects(c.env.CONTENT);
    let plan: AppendPlan | null = null;
    let committed = false;
    try {
      const upload = await readUpload({ contentType: c.req.header("content-type") ?? null, body: c.get("body") }, limits, {
        onDataset: async (part) => {
          const key = newSegmentKey(id);
          pending.add(key);
          const mode = { kind: "rows" as const, expectedColumns: seen.version.columns.length, header: seen.version.columns };
          return ingestCsv(part.content, { mode, limits, bucket: c.env.CONTENT, key });
        },
      });
      if (!upload.dataset) throw new ApiError("invalid_request", "The `dataset` part is required to append.");
      plan = new AppendPlan(c.env, id, upload.dataset, limits.compressionLevel);
      const activePlan = plan;
      const { dataset, version } = await commitChange(
        c.env,
        id,
        { collection: upload.collection, derive: (parent) => activePlan.derive(parent) },
        ifMatch,
      );
      committed = true;
      pending.committed();
      // SPEC B7: a list past the bound is compacted after the response is sent (inline only
      // when the app runs without an execution context; compactIfLong never rejects).
      const compaction = compactIfLong(c.env, id, version.id, limits.compactAfterSegments);
      try {
        c.executionCtx.waitUntil(compaction);
      } catch {
        await compaction;
      }
      c.header("Location", `/v1/dataset/${id}/${version.id}`);
      c.header("Cache-Control", "private, no-store");
      return c.json(appendedRecord(dataset, version), 201);
    } finally {
      await pending.discard();
      await plan?.discardUnused(committed);
    }
  });
}
