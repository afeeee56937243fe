// The `/v1/dataset` resource: mounts each operation and answers other methods with 405.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors.ts";
import { validationHook } from "../http/validation-hook.ts";
import { registerAppend } from "./append.ts";
import { registerCreate } from "./create.ts";
import { registerDelete } from "./delete.ts";
import { registerDownload } from "./download.ts";
import { registerGet } from "./get.ts";
import { registerList } from "./list.ts";
import { registerRows } from "./rows.ts";
import { registerUpdate } from "./update.ts";
import { registerVersions } from "./versions.ts";

const ALLOWED: Array<[path: string, allow: string]> = [
  ["/", "GET, HEAD, POST, OPTIONS"],
  ["/:id", "GET, HEAD, PUT, POST, DELETE, OPTIONS"],
  ["/:id/versions", "GET, HEAD, OPTIONS"],
  ["/:id/:version", "GET, HEAD, OPTIONS"],
  ["/:id/:version/rows", "GET, HEAD, OPTIONS"],
  ["/:id/:version/:file", "GET, HEAD, OPTIONS"],
];

export function datasetRoutes(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerList(app);
  registerCreate(app);
  // Before GET /{id}/{version} and the download route, which would otherwise take these paths.
  registerVersions(app);
  registerRows(app);
  registerGet(app);
  registerUpdate(app);
  registerAppend(app);
  registerDelete(app);
  registerDownload(app);
  for (const [path, allow] of ALLOWED) {
    app.all(path, (c) => {
      throw new ApiError("method_not_allowed", `${c.req.method} is not supported here.`, {}, { Allow: allow });
    });
  }
  return app;
}
