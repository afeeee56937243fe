// docs/edge-and-caching.md "Browser safety": every response the worker sends (API, downloads, pages, errors,
// 404s, CORS preflights, cache hits) carries `X-Content-Type-Options: nosniff`, so no browser
// ever guesses a type and runs what was served as data. Registered first, it wraps them all.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";

export const NOSNIFF = ["X-Content-Type-Options", "nosniff"] as const;

/** The response with nosniff set, copied first when its headers are immutable. */
export function withNosniff(response: Response): Response {
  try {
    response.headers.set(...NOSNIFF);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(...NOSNIFF);
    return copy;
  }
}

export const browserSafetyMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const response = withNosniff(c.res);
  if (response !== c.res) c.res = response;
});
