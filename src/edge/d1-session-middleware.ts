// Opens the request's D1 session (src/edge/d1-session.ts) and hands on its bookmark: responses
// to writes, signed reads and bookmarked reads carry `X-D1-Bookmark`, the newest the request saw.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { BOOKMARK_HEADER, isBookmark, newestBookmark, notedBookmark, sessionConstraint, sessionDatabase } from "./d1-session.ts";
import { ApiError } from "../model/errors.ts";

/**
 * Writes, signed requests and requests that sent a bookmark get one back. An anonymous read
 * does not (not even its 404): a client that then sent it on would turn every later public
 * read private and skip the edge cache for nothing.
 */
function wantsBookmark(request: Request, sent: string | undefined): boolean {
  const safe = request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS";
  return !safe || sent !== undefined || request.headers.has("Signature");
}

export const d1SessionMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const sent = c.req.header(BOOKMARK_HEADER)?.trim();
  if (sent !== undefined && !isBookmark(sent)) {
    throw new ApiError("invalid_request", `${BOOKMARK_HEADER} must be a bookmark this service returned.`);
  }
  const session = c.env.DB.withSession(sessionConstraint(c.req.method, sent ?? null));
  const db = sessionDatabase(session);
  c.env = { ...c.env, DB: db };
  await next();
  const bookmark = newestBookmark(newestBookmark(session.getBookmark(), notedBookmark(db)), sent);
  if (bookmark === null || !wantsBookmark(c.req.raw, sent)) return;
  if (/^\s*public\b/i.test(c.res.headers.get("Cache-Control") ?? "")) return;
  c.res.headers.set(BOOKMARK_HEADER, bookmark);
});
