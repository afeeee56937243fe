// GET /openapi.json (OpenAPI 3.1 generated from the same zod schemas that validate requests)
// and GET /docs (an interactive reference over that document).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { decorateDocument } from "../openapi/decorate.ts";
import { API_DESCRIPTION, API_TITLE, API_VERSION } from "../openapi/info.ts";

const SCALAR_VERSION = "1.72.1";

function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${API_TITLE} API reference</title>
</head>
<body>
<noscript><p>The interactive reference needs JavaScript. The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}"></script>
</body>
</html>`;
}

export function openApiDocument(app: OpenAPIHono<AppEnv>, origin: string) {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: API_TITLE, version: API_VERSION, description: API_DESCRIPTION },
    servers: [{ url: origin }],
  });
  return decorateDocument(document);
}

export function registerDocs(app: OpenAPIHono<AppEnv>): void {
  app.get("/openapi.json", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(openApiDocument(app, new URL(c.req.url).origin));
  });
  app.get("/docs", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.html(docsPage());
  });
}
