// Opens the request's D1 session (src/edge/d1-session.ts) and hands on its bookmark: every
// response that no shared cache keeps carries `X-D1-Bookmark`, the newest the request saw.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { countedSession, type D1Count } from "../edge/d1-count.ts";
import { benchEnabled } from "../routes/bench.ts";
import { BOOKMARK_HEADER, isBookmark, newestBookmark, sessionConstraint, sessionDatabase } from "../edge/d1-session.ts";
import { ApiError } from "../errors.ts";

export const d1SessionMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const sent = c.req.header(BOOKMARK_HEADER)?.trim();
  if (sent !== undefined && !isBookmark(sent)) {
    throw new ApiError("invalid_request", `${BOOKMARK_HEADER} must be a bookmark this service returned.`);
  }
  const session = c.env.DB.withSession(sessionConstraint(c.req.method, sent ?? null));
  const count: D1Count | null = benchEnabled(c.env) ? { queries: 0, writes: 0 } : null;
  c.env = { ...c.env, DB: sessionDatabase(count ? countedSession(session, count) : session) };
  await next();
  if (count) c.res.headers.set("X-Bench-D1", `queries=${count.queries}; writes=${count.writes}`);
  const bookmark = newestBookmark(session.getBookmark(), sent);
  if (bookmark === null || /^\s*public\b/i.test(c.res.headers.get("Cache-Control") ?? "")) return;
  c.res.headers.set(BOOKMARK_HEADER, bookmark);
});
