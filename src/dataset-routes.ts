// The `/v1/dataset` resource: mounts each operation (other methods get 405 from
// hono/method-not-allowed in src/app.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env.ts";
import { validationHook } from "./http/validation-hook.ts";
import { registerAppend } from "./write/append-route.ts";
import { registerCreate } from "./write/create-route.ts";
import { registerDelete } from "./write/delete-route.ts";
import { registerDownload } from "./read/download-route.ts";
import { registerGet } from "./read/get-route.ts";
import { registerList } from "./read/list-route.ts";
import { registerMetadata } from "./metadata/routes.ts";
import { registerRows } from "./query/rows-route.ts";
import { registerRowsCsv } from "./query/export-route.ts";
import { registerStatistics } from "./columnar/statistics-route.ts";
import { registerUpdate } from "./write/update-route.ts";
import { registerVersions } from "./read/versions-route.ts";

export function datasetRoutes(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerList(app);
  registerCreate(app);
  // Before GET /{id}/{version} and the download route, which would otherwise take these paths
  // (rows and the metadata documents are reserved: file-name.ts never stores those names).
  registerVersions(app);
  registerRows(app);
  registerRowsCsv(app);
  registerMetadata(app);
  registerStatistics(app);
  registerGet(app);
  registerUpdate(app);
  registerAppend(app);
  registerDelete(app);
  registerDownload(app);
  return app;
}
