// D1 read replication through the Sessions API (docs/edge-and-caching.md "Replicas"): one session
// per request, opened by the middleware below. Reads start anywhere (the nearest replica); writes
// start on the primary; a request that sends `X-D1-Bookmark` reads at least that fresh, so a
// writer reads its own writes from any replica. Responses to writes, signed reads and bookmarked
// reads carry `X-D1-Bookmark`, the newest the request saw.
// https://developers.cloudflare.com/d1/best-practices/read-replication/
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../model/errors.ts";

export const BOOKMARK_HEADER = "X-D1-Bookmark";

/** D1 bookmarks are hex groups joined by `-`; anything else is refused before it reaches D1. */
const BOOKMARK = /^[0-9a-f]{8}(?:-[0-9a-f]{8}){2}-[0-9a-f]{32}$/;

export function isBookmark(value: string): boolean {
  return BOOKMARK.test(value);
}

/** Bookmarks sort oldest to newest as strings (D1 glossary); null when neither is known. */
export function newestBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a > b ? a : b;
}

export function sessionConstraint(method: string, bookmark: string | null): D1SessionConstraint | D1SessionBookmark {
  if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") return "first-primary";
  return bookmark ?? "first-unconstrained";
}

/**
 * The session as the `D1Database` every route and storage function already takes, so no code
 * path can query outside the request's session. A session has no `exec` or `dump`; nested
 * `withSession` calls share the request's session.
 */
export function sessionDatabase(session: D1DatabaseSession): D1Database {
  const db: D1Database = {
    prepare: (query: string) => session.prepare(query),
    batch: <T = unknown>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    exec: () => Promise.reject(new Error("exec is not available inside a D1 session")),
    withSession: () => session,
    dump: () => Promise.reject(new Error("dump is not available inside a D1 session")),
  };
  notes.set(db, { bookmark: null });
  return db;
}

/**
 * Bookmarks of commits made outside the request's own session (the append sequencer commits in
 * its Durable Object), noted on the request's database so its X-D1-Bookmark covers them too:
 * otherwise the session's last answer, possibly from a replica, could predate the writer's commit.
 */
const notes = new WeakMap<D1Database, { bookmark: string | null }>();

export function notedBookmark(db: D1Database): string | null {
  return notes.get(db)?.bookmark ?? null;
}

/** Records `bookmark` for the request whose database is `db` (a no-op outside a request). */
export function noteBookmark(db: D1Database, bookmark: string | null | undefined): void {
  const note = notes.get(db);
  if (note) note.bookmark = newestBookmark(note.bookmark, bookmark);
}

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
