// POST /v1/dataset — create a dataset from `collection` + `dataset` parts (docs/api.md, docs/api.md#writes).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { createAnswer } from "./answers.ts";
import { CreatedSchema, multipartBody, problemResponse } from "../http/schemas.ts";
import { answerWrite } from "./answer-write.ts";
import { withPolicy, writePolicy } from "../edge/route-policy.ts";

export const createDatasetRoute = withPolicy(
  createRoute({
    method: "post",
    path: "/",
    summary: "Create a dataset",
    request: { body: multipartBody(["collection", "dataset"], "Both parts: the new dataset's `collection` and its first `dataset` content (the first row is the header).") },
    responses: {
      201: { description: "Created; Location names the dataset", content: { "application/json": { schema: CreatedSchema } } },
      400: problemResponse("Malformed request"),
      401: problemResponse("Not signed, or the signature does not verify"),
      413: problemResponse("Too large"),
      415: problemResponse("Not multipart/form-data"),
      422: problemResponse("Invalid CSV, a malformed `collection.schema` (`invalid_schema`), or a cell that breaks a declared type (`schema_mismatch`, with `row`, `column`, `value`, `expected`)"),
    },
  }),
  writePolicy({ uploads: "start" }),
);

export function registerCreate(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createDatasetRoute, async (c) => {
    const datasetId = crypto.randomUUID();
    return answerWrite(c, "create", datasetId, createAnswer, 201);
  });
}
