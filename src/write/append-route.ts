// POST /v1/dataset/:id — append data rows as a new version (docs/api.md, docs/api.md#writes, docs/storage-protocol.md): one new
// segment plus the parent's list, so the cost depends on the appended bytes only.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { appendAnswer } from "./answers.ts";
import { AppendedSchema, IdParamsSchema, multipartBody, problemResponse } from "../http/schemas.ts";
import { answerWrite } from "./answer-write.ts";
import { withPolicy, writePolicy } from "../edge/route-policy.ts";

export const appendRoute = withPolicy(
  createRoute({
    method: "post",
    path: "/{id}",
    summary: "Append rows (a new version)",
    request: { params: IdParamsSchema, body: multipartBody(["dataset"], "`dataset` holds data rows only (no header); an optional `collection` changes metadata in the same version.") },
    responses: {
      201: { description: "The new version; Location names it", content: { "application/json": { schema: AppendedSchema } } },
      400: problemResponse("Malformed request"),
      401: problemResponse("Not signed, or the signature does not verify"),
      403: problemResponse("Dataset of another team"),
      404: problemResponse("No such dataset visible to the caller"),
      412: problemResponse("If-Match is not the latest version"),
      413: problemResponse("Too large"),
      415: problemResponse("Not multipart/form-data"),
      422: problemResponse("Rows do not fit the dataset: invalid CSV, wrong column count, the header again, or a cell that breaks its column's type (`schema_mismatch`)"),
    },
  }),
  writePolicy({ ifMatch: true, uploads: "start" }),
);

export function registerAppend(app: OpenAPIHono<AppEnv>): void {
  app.openapi(appendRoute, async (c) => {
    const { id } = c.req.valid("param");
    return answerWrite(c, "append", id, appendAnswer, 201);
  });
}
