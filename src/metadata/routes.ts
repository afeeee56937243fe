// GET /v1/dataset/:id/:version/{schema, datapackage.json, croissant.jsonld} — a version's Table
// Schema and its catalog metadata documents (docs/catalog.md#catalog-metadata). Readable exactly where the record is (drafts
// by the team only) and cached like it (B6). Registered before the download route, whose
// `{file}` would otherwise take these paths; no stored file name can be one of them (file-name.ts).
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { publicOrigin } from "../config.ts";
import { loadMetadataRecord } from "../read/metadata-record.ts";
import { cacheControlFor, readableVersion } from "../read/content.ts";
import { croissant } from "./croissant.ts";
import { dataPackage } from "./datapackage.ts";
import { versionUrls } from "./urls.ts";
import { TableSchemaSchema } from "../read/reader-schemas.ts";
import { NoQuerySchema, VersionParamsSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

const DocumentSchema = (name: string, description: string) => z.record(z.string(), z.unknown()).openapi(name, { description });

const errors = {
  400: problemResponse("Malformed id or version, or any query parameter"),
  401: problemResponse("Signature present but not valid"),
  404: problemResponse("No such dataset or version visible to the caller (a draft, to anyone outside its team)"),
};

export const schemaRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/schema",
    summary: "A version's Table Schema",
    description: "The column types of the version (Frictionless Table Schema v1): inferred over every row, or declared by the publisher.",
    request: { params: VersionParamsSchema, query: NoQuerySchema },
    responses: { 200: { description: "The Table Schema", content: { "application/json": { schema: TableSchemaSchema } } }, ...errors },
  }),
  readPolicy("dataset"),
);

export const dataPackageRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/datapackage.json",
    summary: "A version as a Frictionless Data Package",
    description:
      "A Tabular Data Package: the record's title, description, keywords, contributors, licence, `version` and `created`, and one resource whose `path` is the absolute URL of the version's CSV, with its `bytes`, CSV dialect and Table Schema. Downloads link here with `rel=\"describedby\"`.",
    request: { params: VersionParamsSchema, query: NoQuerySchema },
    responses: {
      200: {
        description: "The Data Package descriptor",
        content: { "application/json": { schema: DocumentSchema("DataPackage", "https://specs.frictionlessdata.io/data-package/") } },
      },
      ...errors,
    },
  }),
  readPolicy("dataset"),
);

export const croissantRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}/croissant.jsonld",
    summary: "A version as Croissant 1.1 JSON-LD",
    description:
      "For machine-learning hosts and loaders (mlcroissant, Hugging Face, Kaggle, OpenML): the schema.org Dataset, a `cr:FileObject` for the CSV and for the gzip, and one `cr:RecordSet` whose fields mirror the Table Schema. The `@context` is inline.",
    request: { params: VersionParamsSchema, query: NoQuerySchema },
    responses: {
      200: {
        description: "The Croissant document",
        content: { "application/ld+json": { schema: DocumentSchema("Croissant", "http://mlcommons.org/croissant/1.1") } },
      },
      ...errors,
    },
  }),
  readPolicy("dataset"),
);

async function describedVersion(c: Context<AppEnv>, id: string, versionRef: string) {
  const caller = c.get("caller");
  const { dataset, version } = await readableVersion(c.env.DB, id, versionRef, caller);
  const record = await loadMetadataRecord(c.env.DB, dataset, version);
  return { version, record, urls: versionUrls(publicOrigin(c.env), record), cacheControl: cacheControlFor(dataset, caller) };
}

export function registerMetadata(app: OpenAPIHono<AppEnv>): void {
  app.openapi(schemaRoute, async (c) => {
    const { id, version: versionRef } = c.req.valid("param");
    const caller = c.get("caller");
    const { dataset, version } = await readableVersion(c.env.DB, id, versionRef, caller);
    c.header("Cache-Control", cacheControlFor(dataset, caller));
    return c.json(version.schema, 200);
  });
  app.openapi(dataPackageRoute, async (c) => {
    const { id, version } = c.req.valid("param");
    const described = await describedVersion(c, id, version);
    c.header("Cache-Control", described.cacheControl);
    return c.json(dataPackage(described.record, described.version.schema, described.urls), 200);
  });
  app.openapi(croissantRoute, async (c) => {
    const { id, version } = c.req.valid("param");
    const described = await describedVersion(c, id, version);
    c.header("Cache-Control", described.cacheControl);
    const response = c.json(croissant(described.record, described.version.schema, described.urls), 200);
    response.headers.set("Content-Type", "application/ld+json");
    return response;
  });
}
