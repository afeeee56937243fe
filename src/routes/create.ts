// POST /v1/dataset — create a dataset from `collection` + `dataset` parts (SPEC A row 3, B2).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { ingestCsv } from "../datasets/ingest.ts";
import { createdRecord } from "../datasets/shapes.ts";
import { readUpload } from "../datasets/upload.ts";
import { ApiError } from "../errors.ts";
import { commitVersion, type DatasetRow, type VersionRow } from "../storage/datasets-db.ts";
import { newSegmentKey } from "../storage/segment-store.ts";
import { CreatedSchema, MultipartBodyDoc, problemResponse } from "./schemas.ts";
import { PendingObjects, requireCaller } from "./write-context.ts";

export const createDatasetRoute = createRoute({
  method: "post",
  path: "/",
  summary: "Create a dataset",
  request: { body: { ...MultipartBodyDoc, required: true } },
  responses: {
    201: { description: "Created; Location names the dataset", content: { "application/json": { schema: CreatedSchema } } },
    400: problemResponse("Malformed request"),
    401: problemResponse("Not signed, or the signature does not verify"),
    413: problemResponse("Too large"),
    415: problemResponse("Not multipart/form-data"),
    422: problemResponse("Invalid CSV"),
  },
});

export function registerCreate(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createDatasetRoute, async (c) => {
    const caller = requireCaller(c);
    const limits = limitsFrom(c.env);
    const datasetId = crypto.randomUUID();
    const pending = new PendingObjects(c.env.CONTENT);
    try {
      const upload = await readUpload({ contentType: c.req.header("content-type") ?? null, body: c.get("body") }, limits, {
        onCollection: (collection) => {
          if (collection.name === undefined) throw new ApiError("invalid_request", "collection.name is required to create a dataset.");
        },
        onDataset: async (part) => {
          const key = newSegmentKey(datasetId);
          pending.add(key);
          const ingested = await ingestCsv(part.content, { mode: { kind: "table" }, limits, bucket: c.env.CONTENT, key });
          return { ingested, fileName: part.fileName };
        },
      });
      if (!upload.collection) throw new ApiError("invalid_request", "The `collection` part is required.");
      if (upload.collection.name === undefined) throw new ApiError("invalid_request", "collection.name is required to create a dataset.");
      if (!upload.dataset) throw new ApiError("invalid_request", "The `dataset` part is required.");
      const { ingested, fileName } = upload.dataset;
      const version: VersionRow = {
        id: crypto.randomUUID(),
        datasetId,
        seq: 1,
        parentId: null,
        created: new Date().toISOString(),
        name: upload.collection.name,
        visibility: upload.collection.visibility ?? "private",
        properties: upload.collection.properties ?? {},
        fileName,
        columns: ingested.stats.header ?? [],
        rowCount: ingested.stats.rows,
        rawBytes: ingested.segment.rawBytes,
        crc32: ingested.crc,
        eol: ingested.stats.eol,
        endsWithNewline: ingested.stats.endsWithNewline,
      };
      await commitVersion(c.env.DB, {
        dataset: { id: datasetId, teamId: caller.teamId, ownerId: caller.userId },
        version,
        reuseParentSegments: false,
        newSegments: [ingested.segment],
      });
      pending.committed();
      const dataset: DatasetRow = {
        id: datasetId,
        teamId: caller.teamId,
        ownerId: caller.userId,
        created: version.created,
        name: version.name,
        visibility: version.visibility,
        latestVersion: version.id,
        latestSeq: 1,
      };
      c.header("Location", `/v1/dataset/${datasetId}`);
      c.header("Cache-Control", "private, no-store");
      return c.json(createdRecord(dataset, version), 201);
    } finally {
      await pending.discard();
    }
  });
}
