// The `/v1/dataset` resource: mounts each operation (other methods get 405 from
// hono/method-not-allowed in src/app.ts).
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { validationHook } from "../http/validation-hook.ts";
import { registerAppend } from "./append.ts";
import { registerCreate } from "./create.ts";
import { registerDelete } from "./delete.ts";
import { registerDownload } from "./download.ts";
import { registerGet } from "./get.ts";
import { registerList } from "./list.ts";
import { registerMetadata } from "./metadata.ts";
import { registerRows } from "./rows.ts";
import { registerUpdate } from "./update.ts";
import { registerVersions } from "./versions.ts";

export function datasetRoutes(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerList(app);
  registerCreate(app);
  // Before GET /{id}/{version} and the download route, which would otherwise take these paths
  // (rows and the metadata documents are reserved: file-name.ts never stores those names).
  registerVersions(app);
  registerRows(app);
  registerMetadata(app);
  registerGet(app);
  registerUpdate(app);
  registerAppend(app);
  registerDelete(app);
  registerDownload(app);
  return app;
}
