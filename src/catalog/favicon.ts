// `/favicon.ico`: browsers ask every origin for it, even on a JSON answer, a CSV or a
// problem+json opened in a tab, and log the 404 when there is none. One small SVG (a table's
// rows), cached for a day; it holds no script, and its own CSP allows none.
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";

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
        "Cache-Control": "public, max-age=86400",
        "Content-Security-Policy": "default-src 'none'",
      },
    }),
  );
  return app;
}
