// The routes outside the API that the worker also serves — the catalog's HTML pages, its two
// redirects, and the documentation itself — entered in the OpenAPI document so that it lists
// every route the app answers (test/docs.openapi.test.ts checks both directions). They are
// unsigned HTML for people; decorate.ts leaves them without the API's headers and problems.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ICON_CACHE_CONTROL, MUTABLE_CACHE_CONTROL } from "../edge/cache-control.ts";

const PAGES_TAG = "Pages (HTML for people)";
const METADATA_TAG = "Catalog metadata (for harvesters)";

const html = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" as const } } } });
const redirect = (to: string) => ({ description: `Moved permanently to ${to}`, headers: { Location: { description: to, schema: { type: "string" as const } } } });
const query = (name: string, description: string) => ({ name, in: "query" as const, required: false, description, schema: { type: "string" as const } });
const idParam = { name: "id", in: "path" as const, required: true, description: "The dataset's id.", schema: { type: "string" as const } };

export function documentPages(app: OpenAPIHono<AppEnv>): void {
  const registry = app.openAPIRegistry;
  registry.registerPath({
    method: "get",
    path: "/",
    tags: [PAGES_TAG],
    summary: "Catalog home: search and browse public datasets",
    parameters: [
      query("q", "Search words (the API's full-text search)."),
      query("team", "Only this team's datasets."),
      query("owner", "Only this user's datasets."),
      query("cursor", "The next page, from the page's own link."),
    ],
    responses: { 200: html("The catalog page"), 400: html("The form again, with why the query could not run") },
  });
  registry.registerPath({
    method: "get",
    path: "/datasets/{id}",
    tags: [PAGES_TAG],
    summary: "A public dataset's page: metadata, preview, downloads, version history",
    parameters: [idParam, query("versions", "A page of older versions, from the page's own link.")],
    responses: { 200: html("The dataset page"), 404: html("Missing, private or deleted: the same page") },
  });
  registry.registerPath({ method: "get", path: "/datasets", tags: [PAGES_TAG], summary: "The catalog home", responses: { 301: redirect("/") } });
  registry.registerPath({
    method: "get",
    path: "/datasets/{id}/",
    tags: [PAGES_TAG],
    summary: "A dataset page, typed with a trailing slash",
    parameters: [idParam],
    responses: { 301: redirect("/datasets/{id}") },
  });
  registry.registerPath({
    method: "get",
    path: "/openapi.json",
    tags: [PAGES_TAG],
    summary: "This document",
    responses: { 200: { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" as const } } } } },
  });
  registry.registerPath({
    method: "get",
    path: "/catalog.jsonld",
    tags: [METADATA_TAG],
    summary: "Every public dataset as a DCAT 3 (DCAT-AP 3) catalog in JSON-LD, a Hydra page at a time",
    description:
      "For catalog harvesters (CKAN's DCAT extension, EU data portals). Newest dataset first; each `dcat:Dataset` has its CSV and gzip `dcat:Distribution`s and `dcat:hasVersion` links to its newest 100 published versions. Follow `hydra:view` → `hydra:next` until a page has none. Public datasets only, signed or not; drafts never. The `@context` is inline.",
    parameters: [query("limit", "Datasets per page, 1-100 (default 20)."), query("cursor", "The next page, from `hydra:next`.")],
    responses: {
      200: {
        description: `A \`dcat:Catalog\` whose \`hydra:view\` is this page; \`Cache-Control: ${MUTABLE_CACHE_CONTROL}\`, \`ETag\``,
        content: { "application/ld+json": { schema: { type: "object" as const } } },
      },
      304: { description: "Not modified (If-None-Match matched)" },
      400: { description: "An unknown query parameter, a bad `limit` or a cursor this feed did not issue (`invalid_query`)", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
    },
  });
  registry.registerPath({ method: "get", path: "/docs", tags: [PAGES_TAG], summary: "This document as an HTML reference", responses: { 200: html("The reference") } });
  registry.registerPath({
    method: "get",
    path: "/favicon.ico",
    tags: [PAGES_TAG],
    summary: "The site icon browsers ask for, also on JSON and CSV answers",
    responses: { 200: { description: `An SVG icon; \`Cache-Control: ${ICON_CACHE_CONTROL}\``, content: { "image/svg+xml": { schema: { type: "string" as const } } } } },
  });
}
