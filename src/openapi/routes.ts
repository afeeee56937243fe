// GET /openapi.json (OpenAPI 3.1 generated from the same zod schemas that validate requests)
// and GET /docs (that document as a plain HTML reference, made interactive by Scalar).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { publicOrigin } from "../config.ts";
import { CollectionSchema } from "../write/collection-schema.ts";
import { UploadCreationSchema } from "../uploads/creation.ts";
import { decorateDocument } from "./decorate.ts";
import { DELIVERY_WEBHOOK } from "../changes/webhooks/schemas.ts";
import type { RouteTable } from "../edge/route-policy.ts";
import { API_DESCRIPTION, API_TITLE, API_VERSION } from "./info.ts";
import { documentPages } from "./pages.ts";
import { docsContentSecurityPolicy, referencePageHtml } from "./reference-page.tsx";
import { DOCS_CACHE_CONTROL } from "../edge/cache-control.ts";


export function openApiDocument(app: OpenAPIHono<AppEnv>, routes: RouteTable, origin: string) {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: API_TITLE, version: API_VERSION, description: API_DESCRIPTION },
    servers: [{ url: origin }],
  });
  return decorateDocument(document, routes);
}

export function registerDocs(app: OpenAPIHono<AppEnv>, routes: RouteTable): void {
  documentPages(app);
  // The writes' `collection` part refers to it (multipartBody); no JSON body schema registers it.
  app.openAPIRegistry.register("Collection", CollectionSchema);
  // The JSON body that starts a resumable upload on the same writes (decorate.ts).
  app.openAPIRegistry.register("UploadCreation", UploadCreationSchema);
  // What a webhook receives (docs/changes.md "Webhooks"): OpenAPI 3.1's `webhooks` section.
  app.openAPIRegistry.registerWebhook(DELIVERY_WEBHOOK);
  app.get("/openapi.json", (c) => {
    c.header("Cache-Control", DOCS_CACHE_CONTROL);
    return c.json(openApiDocument(app, routes, publicOrigin(c.env)));
  });
  app.get("/docs", async (c) => {
    c.header("Cache-Control", DOCS_CACHE_CONTROL);
    c.header("Content-Security-Policy", docsContentSecurityPolicy(publicOrigin(c.env)));
    c.header("Referrer-Policy", "no-referrer");
    return c.html(await referencePageHtml(openApiDocument(app, routes, publicOrigin(c.env))));
  });
}
