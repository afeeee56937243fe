// Resumable uploads (draft-ietf-httpbis-resumable-upload-15, the subset a Worker serves: no 104
// interim responses). A write with `Upload-Complete: ?0` creates an upload resource
// /v1/uploads/{id} (start.ts); HEAD reads its offset (§4.3), PATCH appends (§4.4), DELETE
// cancels (§4.5). The final PATCH answers what the one-request write would have answered.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { appendAnswer, createAnswer, updateAnswer } from "../write/answers.ts";
import { appendChunk } from "./chunks.ts";
import { failure, ownUpload } from "./state.ts";
import { indicatedLength, sfNonNegativeInteger } from "./length.ts";
import { PARTIAL_UPLOAD, stateHeaders, uploadLimit, withUploadLimit } from "./upload-headers.ts";
import { UUID_PATTERN } from "../model/ids.ts";
import { ApiError } from "../model/errors.ts";
import { deleteUpload } from "./store.ts";
import { problemResponse } from "../http/schemas.ts";
import { ifMatchVersion, requireCaller } from "../write/write-context.ts";
import { UNCACHED, withPolicy, writePolicy, type RouteTable } from "../edge/route-policy.ts";

const UploadParamsSchema = z.object({
  id: z
    .string()
    .regex(UUID_PATTERN, "must be a lowercase UUID v4")
    .openapi({ param: { name: "id", in: "path" }, description: "The upload's id, from the creation's Location." }),
});

const ANSWERS = { create: createAnswer, update: updateAnswer, append: appendAnswer } as const;

/**
 * OPTIONS on a path where a write takes resumable uploads (its route policy says `resumable`;
 * draft §4.1.4): `Accept-Patch` names `application/partial-upload` and `Upload-Limit` the
 * limits, so a client can learn both before creating an upload. Wraps the CORS middleware,
 * which answers every OPTIONS.
 */
export function uploadOptionsMiddleware(routes: RouteTable): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method !== "OPTIONS" || !routes.takesUploads(c.req.path)) return;
    const headers = new Headers(c.res.headers);
    headers.set("Accept-Patch", PARTIAL_UPLOAD);
    headers.set("Upload-Limit", uploadLimit(c.env, limitsFrom(c.env).uploadExpirySeconds));
    c.res = new Response(c.res.body, { status: c.res.status, headers });
  };
}

// Registered as GET, which Hono also serves for HEAD (the draft's offset retrieval, §4.3).
const headRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}",
    summary: "A resumable upload's offset (HEAD or GET)",
    request: { params: UploadParamsSchema },
    responses: {
      204: { description: "`Upload-Offset`, `Upload-Complete`, `Upload-Limit`, `Upload-Length` once known; `Cache-Control: no-store`" },
      401: problemResponse("Not signed, or the signature does not verify"),
      404: problemResponse("No such upload of the caller's team (or it expired)"),
      400: problemResponse("The upload failed on its length: `inconsistent_upload_length` (no body on HEAD)"),
      422: problemResponse("The upload failed: a chunk's CSV was invalid (no body on HEAD)"),
    },
  }),
  UNCACHED,
);

const patchRoute = withPolicy(
  createRoute({
    method: "patch",
    path: "/{id}",
    summary: "Append a chunk to a resumable upload",
    request: {
      params: UploadParamsSchema,
      headers: z.object({
        "upload-offset": z.string().regex(/^\d{1,15}$/, "must be a non-negative integer").openapi({ description: "Where this chunk starts: the upload's offset." }),
        "upload-complete": z.enum(["?0", "?1"]).openapi({ description: "`?1` on the last chunk: the upload is then committed as one version." }),
        "upload-length": z
          .string()
          .optional()
          .openapi({ description: "The content's whole length in bytes as sent, once known (draft §4.1.3); must agree with every other indication." }),
      }),
      body: {
        required: true,
        description: "`Content-Type: application/partial-upload`; the next bytes of the content (whole gzip members for a gzip upload).",
        content: { [PARTIAL_UPLOAD]: { schema: { type: "string" as const, format: "binary" } } },
      },
    },
    responses: {
      200: { description: "Last chunk of a PUT: the updated dataset, as PUT answers" },
      201: { description: "Last chunk of a create or append: the created dataset or version, as the write answers" },
      204: { description: "Chunk stored; `Upload-Offset` is the new offset" },
      400: problemResponse(
        "Malformed headers, a gzip chunk that is not whole members, `inconsistent_upload_length` (lengths that disagree, content past the length or after the last chunk), or `completed_upload`",
      ),
      401: problemResponse("Not signed, or the chunk does not match its Content-Digest"),
      404: problemResponse("No such upload of the caller's team (or it expired)"),
      409: problemResponse("`mismatching_upload_offset`: `Upload-Offset` is not the upload's offset (the right one is in the header and `offset`)"),
      413: problemResponse(
        "Chunk over `max-append-size`, a chunk before the last under `min-append-size`, one past `MAX_UPLOAD_CHUNKS`, content or `Upload-Length` over `max-size`, or a CSV limit",
      ),
      415: problemResponse("Not application/partial-upload"),
      422: problemResponse("Invalid CSV in this chunk (`row` is the row number in the whole file): the upload fails"),
    },
  }),
  writePolicy({ uploads: "append" }),
);

const deleteRoute = withPolicy(
  createRoute({
    method: "delete",
    path: "/{id}",
    summary: "Cancel a resumable upload",
    request: { params: UploadParamsSchema },
    responses: {
      204: { description: "Cancelled; its stored chunks are removed by the clean-up" },
      401: problemResponse("Not signed, or the signature does not verify"),
      404: problemResponse("No such upload of the caller's team"),
    },
  }),
  writePolicy(),
);

export function uploadRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(headRoute, async (c) => {
    const upload = await ownUpload(c.env.DB, c.req.valid("param").id, requireCaller(c));
    const failed = failure(upload);
    if (failed) throw failed;
    stateHeaders(c, upload.offset, upload.state === "done" || upload.state === "completing", upload.expiresAt, upload.length);
    return c.body(null, 204);
  });

  app.openapi(patchRoute, async (c) => {
    const caller = requireCaller(c);
    const headers = c.req.valid("header");
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== PARTIAL_UPLOAD) throw new ApiError("unsupported_media_type", `A chunk is sent as Content-Type: ${PARTIAL_UPLOAD}.`);
    const offset = Number(headers["upload-offset"]);
    const complete = headers["upload-complete"] === "?1";
    const indicated = { uploadLength: c.req.header("upload-length"), contentLength: c.req.header("content-length"), complete, offset };
    const length = await withUploadLimit(c, async () => indicatedLength(indicated, limitsFrom(c.env).maxResumableBytes));
    const defer = (work: Promise<void>) => {
      try {
        c.executionCtx.waitUntil(work);
      } catch {
        void work;
      }
    };
    const contentLength = sfNonNegativeInteger(c.req.header("content-length"));
    const chunk = { uploadId: c.req.valid("param").id, caller, offset, complete, length, contentLength, body: c.get("body"), defer };
    const outcome = await withUploadLimit(c, () => appendChunk(c.env, chunk, (kind) => ANSWERS[kind]));
    c.header("Upload-Offset", String(outcome.offset));
    c.header("Upload-Complete", outcome.complete ? "?1" : "?0");
    c.header("Cache-Control", "no-store");
    if (!outcome.complete) return c.body(null, 204);
    const { answer } = outcome;
    if (answer.location !== null) c.header("Location", answer.location);
    c.header("Content-Type", "application/json");
    return c.body(answer.json, answer.status);
  });

  app.openapi(deleteRoute, async (c) => {
    const upload = await ownUpload(c.env.DB, c.req.valid("param").id, requireCaller(c));
    await deleteUpload(c.env.DB, upload.id, Date.now());
    c.header("Cache-Control", "no-store");
    return c.body(null, 204);
  });
}
