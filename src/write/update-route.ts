// PUT /v1/dataset/:id — new version with replaced metadata and/or content (docs/api.md, docs/api.md#writes).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { updateAnswer } from "./answers.ts";
import { IdParamsSchema, multipartBody, UpdatedSchema, problemResponse } from "../http/schemas.ts";
import { answerWrite } from "./answer-write.ts";
import { withPolicy, writePolicy } from "../edge/route-policy.ts";

export const updateDatasetRoute = withPolicy(
  createRoute({
    method: "put",
    path: "/{id}",
    summary: "Update a dataset's metadata and/or replace its content",
    request: { params: IdParamsSchema, body: multipartBody([], "At least one part: `collection` replaces the fields it names; `dataset` replaces the content (its first row is the new header). A `collection` with only `schema` re-types the current content: every stored row is checked and the new version reuses the stored content.") },
    responses: {
      200: { description: "The new version", content: { "application/json": { schema: UpdatedSchema } } },
      400: problemResponse("Malformed request"),
      401: problemResponse("Not signed, or the signature does not verify"),
      403: problemResponse("Dataset of another team"),
      404: problemResponse("No such dataset visible to the caller"),
      412: problemResponse("If-Match is not the latest version"),
      413: problemResponse("Too large"),
      415: problemResponse("Not multipart/form-data"),
      422: problemResponse("Invalid CSV, a malformed `collection.schema` (`invalid_schema`), or a cell that breaks a declared type (`schema_mismatch`, with `row`, `column`, `value`, `expected`)"),
    },
  }),
  writePolicy({ ifMatch: true, uploads: "start" }),
);

export function registerUpdate(app: OpenAPIHono<AppEnv>): void {
  app.openapi(updateDatasetRoute, async (c) => {
    const { id } = c.req.valid("param");
    return answerWrite(c, "update", id, updateAnswer, 200);
  });
}
