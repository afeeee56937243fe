// PUT /v1/dataset/:id — new version with replaced metadata and/or content (SPEC A row 4, B2).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { writableDataset } from "../datasets/access.ts";
import { commitChange, replacedContent } from "../datasets/commit.ts";
import { ingestCsv } from "../datasets/ingest.ts";
import { updatedRecord } from "../datasets/shapes.ts";
import { readUpload } from "../datasets/upload.ts";
import { ApiError } from "../errors.ts";
import { newSegmentKey } from "../storage/segment-store.ts";
import { IdParamsSchema, MultipartBodyDoc, UpdatedSchema, problemResponse } from "./schemas.ts";
import { PendingObjects, ifMatchVersion, requireCaller } from "./write-context.ts";

export const updateDatasetRoute = createRoute({
  method: "put",
  path: "/{id}",
  summary: "Update a dataset's metadata and/or replace its content",
  request: { params: IdParamsSchema, body: { ...MultipartBodyDoc, required: true } },
  responses: {
    200: { description: "The new version", content: { "application/json": { schema: UpdatedSchema } } },
    400: problemResponse("Malformed request"),
    401: problemResponse("Not signed, or the signature does not verify"),
    403: problemResponse("Dataset of another team"),
    404: problemResponse("No such dataset visible to the caller"),
    412: problemResponse("If-Match is not the latest version"),
    413: problemResponse("Too large"),
    415: problemResponse("Not multipart/form-data"),
    422: problemResponse("Invalid CSV"),
  },
});

export function registerUpdate(app: OpenAPIHono<AppEnv>): void {
  app.openapi(updateDatasetRoute, async (c) => {
    const caller = requireCaller(c);
    const { id } = c.req.valid("param");
    const ifMatch = ifMatchVersion(c);
    await writableDataset(c.env.DB, id, caller);
    const limits = limitsFrom(c.env);
    const pending = new PendingObjects(c.env.CONTENT);
    try {
      const upload = await readUpload({ contentType: c.req.header("content-type") ?? null, body: c.get("body") }, limits, {
        onDataset: async (part) => {
          const key = newSegmentKey(id);
          pending.add(key);
          const ingested = await ingestCsv(part.content, { mode: { kind: "table" }, limits, bucket: c.env.CONTENT, key });
          return { ingested, fileName: part.fileName };
        },
      });
      if (!upload.collection && !upload.dataset) {
        throw new ApiError("invalid_request", "Send a `collection` part, a `dataset` part, or both.");
      }
      const replacement = upload.dataset;
      const { dataset, version } = await commitChange(
        c.env,
        id,
        {
          collection: upload.collection,
          derive: async (parent) =>
            replacement
              ? replacedContent(replacement.ingested, replacement.fileName)
              : {
                  content: {
                    fileName: parent.fileName,
                    columns: parent.columns,
                    rowCount: parent.rowCount,
                    rawBytes: parent.rawBytes,
                    crc32: parent.crc32,
                    eol: parent.eol,
                    endsWithNewline: parent.endsWithNewline,
                  },
                  reuseParentSegments: true,
                  newSegments: [],
                },
        },
        ifMatch,
      );
      pending.committed();
      c.header("Cache-Control", "private, no-store");
      return c.json(updatedRecord(dataset, version), 200);
    } finally {
      await pending.discard();
    }
  });
}
