// The last word on every response's caching headers (docs/edge-and-caching.md, src/edge/cache-policy.ts):
// immutable or mutable Cache-Control, Cache-Tag for purges, Vary, and no-store for errors. The
// route's declared cache class comes from the route table (route-policy.ts).
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { applyCachePolicy } from "./cache-policy.ts";
import { copyResponse } from "./response-copy.ts";
import { replaceResponse } from "./http-cache.ts";
import type { RouteTable } from "./route-policy.ts";

export function cachePolicyMiddleware(routes: RouteTable) {
  return createMiddleware<AppEnv>(async (c, next) => {
    await next();
    const route = routes.match(c.req.method, c.req.path);
    try {
      applyCachePolicy(c.req.raw, route, c.res.status, c.res.headers);
    } catch {
      // A response with immutable headers (one passed through from fetch or the Cache API).
      const copy = copyResponse(c.res);
      applyCachePolicy(c.req.raw, route, copy.status, copy.headers);
      replaceResponse(c, copy);
    }
  });
}
