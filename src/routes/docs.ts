// GET /openapi.json (OpenAPI 3.1 generated from the same zod schemas that validate requests)
// and GET /docs (that document as a plain HTML reference, made interactive by Scalar).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { decorateDocument } from "../openapi/decorate.ts";
import { API_DESCRIPTION, API_TITLE, API_VERSION } from "../openapi/info.ts";
import { documentPages } from "../openapi/pages.ts";
import { referencePageHtml } from "../openapi/reference-page.tsx";


export function openApiDocument(app: OpenAPIHono<AppEnv>, origin: string) {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: API_TITLE, version: API_VERSION, description: API_DESCRIPTION },
    servers: [{ url: origin }],
  });
  return decorateDocument(document);
}

export function registerDocs(app: OpenAPIHono<AppEnv>): void {
  documentPages(app);
  app.get("/openapi.json", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(openApiDocument(app, new URL(c.req.url).origin));
  });
  app.get("/docs", async (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.html(await referencePageHtml(openApiDocument(app, new URL(c.req.url).origin)));
  });
}
