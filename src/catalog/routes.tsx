// The public catalog (docs/catalog.md `GET /`): server-rendered HTML pages over the same domain
// functions as the API, always in the anonymous scope — the catalog ignores signatures, so a
// private dataset never shows, whoever asks. Failures become HTML pages, not problem+json.
// `GET /catalog.jsonld` (feed.ts) is its own sub-app, so a bad query or a server that is not set
// up answers problem+json like the API. `/favicon.ico`: browsers ask every origin for it, even
// on a JSON answer, a CSV or a problem+json opened in a tab, and log the 404 when there is none;
// one small SVG (a table's rows), cached for a day, holding no script.
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { publicOrigin } from "../config.ts";
import { ApiError } from "../model/errors.ts";
import { logSetupProblem, setupProblem } from "../http/setup-problems.ts";
import { loadDatasetPage } from "./dataset-data.ts";
import { previewRequest } from "./preview-query.ts";
import { homeQuery, loadHome } from "./home-data.ts";
import { htmlResponse } from "./pages/layout.tsx";
import { DatasetPage } from "./pages/dataset-page.tsx";
import { ErrorPage, NOT_SET_UP, PAGE_NOT_FOUND } from "./pages/error-page.tsx";
import { HomePage } from "./pages/home-page.tsx";
import { declarePolicy, readPolicy } from "../edge/route-policy.ts";
import { etagOf, ifNoneMatchHits, notModified } from "../edge/etag.ts";
import { FEED_PATH, feedQuery, loadCatalogFeed } from "./feed.ts";
import { ICON_CACHE_CONTROL, MUTABLE_CACHE_CONTROL, PENDING_PAGE_CACHE_CONTROL } from "../edge/cache-control.ts";

export function catalogRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/", declarePolicy(readPolicy("catalog")), async (c) => {
    const data = await loadHome(c.env.DB, homeQuery(new URL(c.req.url)));
    return htmlResponse(<HomePage data={data} />, data.problem === null ? 200 : 400);
  });

  // Links people type or paste by hand: `/datasets` and `/datasets/<id>/` mean the obvious pages.
  app.get("/datasets", (c) => c.redirect("/", 301));
  app.get("/datasets/:id/", (c) => c.redirect(`/datasets/${encodeURIComponent(c.req.param("id"))}${new URL(c.req.url).search}`, 301));

  app.get("/datasets/:id", declarePolicy(readPolicy("dataset-page")), async (c) => {
    const url = new URL(c.req.url);
    const data = await loadDatasetPage(c.env, c.req.param("id"), url.searchParams.get("versions") || undefined, previewRequest(url.searchParams));
    if (!data) return htmlResponse(<ErrorPage status={404} />, 404);
    // A filter or sort that cannot run is the reader's to fix: the page says where, with a 400.
    const status = data.preview.state === "invalid" ? 400 : 200;
    const response = await htmlResponse(<DatasetPage data={data} origin={publicOrigin(c.env)} />, status);
    // A page that says its statistics are still being computed is kept by no cache: nothing
    // purges it when they are ready (docs/catalog.md "Column summaries").
    if (data.statistics.state === "pending") response.headers.set("Cache-Control", PENDING_PAGE_CACHE_CONTROL);
    return response;
  });

  app.onError(async (error) => {
    const setup = setupProblem(error);
    if (setup !== null) {
      logSetupProblem(setup);
      const response = await htmlResponse(<ErrorPage status={503} message={{ title: NOT_SET_UP, text: setup.detail }} />, 503);
      response.headers.set("Cache-Control", "no-store");
      return response;
    }
    if (error instanceof ApiError && error.status < 500) {
      const status = error.status === 404 ? 404 : 400;
      return htmlResponse(<ErrorPage status={status} />, status);
    }
    console.error("catalog page failed", error);
    return htmlResponse(<ErrorPage status={500} />, 500);
  });

  return app;
}

/** A path nobody serves, asked for by a browser outside the API: the catalog's HTML 404 page
 * (with a way back home) rather than a problem+json document. */
export function catalogNotFound(request: Request): Promise<Response> | null {
  const path = new URL(request.url).pathname;
  const isPageRequest = request.method === "GET" || request.method === "HEAD";
  if (!isPageRequest || path.startsWith("/v1/") || !(request.headers.get("accept") ?? "").includes("text/html")) return null;
  return htmlResponse(<ErrorPage status={404} message={PAGE_NOT_FOUND} />, 404);
}

export function catalogFeedRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(FEED_PATH, declarePolicy(readPolicy("catalog")), async (c) => {
    const query = feedQuery(new URL(c.req.url));
    const document = await loadCatalogFeed(c.env.DB, publicOrigin(c.env), query);
    const bytes = new TextEncoder().encode(JSON.stringify(document));
    const response = new Response(bytes, {
      headers: {
        "Content-Type": "application/ld+json",
        // The same for everyone (anonymous scope), so a minute fresh like the catalog's lists.
        "Cache-Control": MUTABLE_CACHE_CONTROL,
        ETag: await etagOf(bytes),
      },
    });
    return ifNoneMatchHits(c.req.header("if-none-match"), response.headers.get("ETag") ?? "") ? notModified(response) : response;
  });
  return app;
}

const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="6" fill="#1f4e79"/>' +
  '<path d="M8 9h16M8 15h16M8 21h16M8 27h9" stroke="#fff" stroke-width="3"/></svg>';

export function faviconRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/favicon.ico", () =>
    new Response(ICON, {
      headers: {
        "Content-Type": "image/svg+xml",
        "Cache-Control": ICON_CACHE_CONTROL,
        "Content-Security-Policy": "default-src 'none'",
      },
    }),
  );
  return app;
}
