// GET /v1/dataset/:id[/:version] — one version's record (docs/api.md), with a `Link` to its
// content, the one way to find the file name from an id alone.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { contentLink, versionRecord } from "./shapes.ts";
import { cacheControlFor, readableVersion } from "./content.ts";
import { IdParamsSchema, NoQuerySchema, VersionParamsSchema, VersionRecordSchema, problemResponse } from "../http/schemas.ts";
import { readPolicy, withPolicy } from "../edge/route-policy.ts";

const responses = {
  200: { description: "The version's record", content: { "application/json": { schema: VersionRecordSchema } } },
  400: problemResponse("Malformed id, or any query parameter"),
  401: problemResponse("Signature present but not valid"),
  404: problemResponse("No such dataset or version visible to the caller (a draft, to anyone outside its team)"),
};

export const getLatestRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}",
    summary: "Get a dataset (latest version)",
    request: { params: IdParamsSchema, query: NoQuerySchema },
    responses,
  }),
  readPolicy("dataset", ["enclosure"]),
);

export const getVersionRoute = withPolicy(
  createRoute({
    method: "get",
    path: "/{id}/{version}",
    summary: "Get one version of a dataset",
    request: { params: VersionParamsSchema, query: NoQuerySchema },
    responses,
  }),
  readPolicy("dataset", ["enclosure"]),
);

async function respond(c: Context<AppEnv>, id: string, versionRef: string) {
  const caller = c.get("caller");
  const { dataset, version } = await readableVersion(c.env.DB, id, versionRef, caller);
  c.header("Cache-Control", cacheControlFor(dataset, caller));
  c.header("Link", contentLink(dataset, version));
  // The version id itself, so the standard GET-then-`If-Match` PUT works (docs/edge-and-caching.md).
  c.header("ETag", `"${version.id}"`);
  return c.json(versionRecord(dataset, version), 200);
}

export function registerGet(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getLatestRoute, (c) => respond(c, c.req.valid("param").id, "latest"));
  app.openapi(getVersionRoute, (c) => {
    const { id, version } = c.req.valid("param");
    return respond(c, id, version);
  });
}
