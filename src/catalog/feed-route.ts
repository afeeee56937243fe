// Mounts `GET /catalog.jsonld` (src/catalog/feed.ts). Its own sub-app, so a bad query or a server
// that is not set up answers problem+json like the API, not the catalog's HTML error pages.
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { publicOrigin } from "../config.ts";
import { MUTABLE_CACHE_CONTROL } from "../edge/cache-policy.ts";
import { etagOf, ifNoneMatchHits, notModified } from "../edge/etag.ts";
import { FEED_PATH, feedQuery, loadCatalogFeed } from "./feed.ts";
import { declarePolicy, readPolicy } from "../edge/route-policy.ts";

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
