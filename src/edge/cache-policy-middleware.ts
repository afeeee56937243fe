// The last word on every response's caching headers (docs/edge-and-caching.md, src/edge/cache-policy.ts):
// immutable or mutable Cache-Control, Cache-Tag for purges, Vary, and no-store for errors.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { applyCachePolicy } from "./cache-policy.ts";
import { copyResponse } from "./response-copy.ts";
import { replaceResponse } from "./http-cache.ts";

export const cachePolicyMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  try {
    applyCachePolicy(c.req.raw, c.res.status, c.res.headers);
  } catch {
    // A response with immutable headers (one passed through from fetch or the Cache API).
    const copy = copyResponse(c.res);
    applyCachePolicy(c.req.raw, copy.status, copy.headers);
    replaceResponse(c, copy);
  }
});
