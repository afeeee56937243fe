// DELETE /v1/dataset/:id — removes a dataset with every version and its content (docs/api.md).
// Signed, owning team only; afterwards every path of the dataset answers 404.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { readableDataset } from "../read/content.ts";
import { deleteDataset } from "./delete.ts";
import { drainAfterCommit } from "../changes/webhooks/drain.ts";
import { ApiError } from "../model/errors.ts";
import type { Caller, DatasetRow } from "../model/dataset.ts";
import { IdParamsSchema, problemResponse } from "../http/schemas.ts";
import { requireCaller } from "./write-context.ts";
import { withPolicy, writePolicy } from "../edge/route-policy.ts";

export const deleteDatasetRoute = withPolicy(
  createRoute({
    method: "delete",
    path: "/{id}",
    summary: "Delete a dataset, all its versions and content",
    request: { params: IdParamsSchema },
    responses: {
      204: { description: "Deleted" },
      400: problemResponse("Malformed id"),
      401: problemResponse("Not signed, or the signature does not verify"),
      403: problemResponse("Public dataset of another team"),
      404: problemResponse("No such dataset visible to the caller"),
    },
  }),
  writePolicy(),
);

export function registerDelete(app: OpenAPIHono<AppEnv>): void {
  app.openapi(deleteDatasetRoute, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    await writableDataset(c.env.DB, id, caller);
    if (!(await deleteDataset(c.env, id))) throw new ApiError("not_found", `No dataset ${id}.`);
    drainAfterCommit(c.env, (work) => {
      try {
        c.executionCtx.waitUntil(work);
      } catch {
        void work;
      }
    });
    c.header("Cache-Control", "private, no-store");
    return c.body(null, 204);
  });
}

/** Writes need the owning team; another team gets 404 for a private dataset and 403 for a public one. */
async function writableDataset(db: D1Database, id: string, caller: Caller): Promise<DatasetRow> {
  const dataset = await readableDataset(db, id, caller);
  if (dataset.teamId !== caller.teamId) throw new ApiError("forbidden", `Dataset ${id} belongs to another team.`);
  return dataset;
}
