// HTTP caching for reads (SPEC B6): every 200 GET gets a strong ETag and answers a matching
// If-None-Match with 304; unsigned reads of public data are also kept in the Workers Cache
// API. Cache keys carry what the response depends on — the catalog's write generation for
// lists, the dataset's latest version for its unversioned paths — so any write makes older
// entries unreachable, and a dataset that is private or gone is never looked up at all.
// Signed requests never read from or write to the shared cache.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { PUBLIC_CACHE_CONTROL } from "../datasets/versions.ts";
import { acceptsGzip, clientAcceptEncoding } from "../http/accept-encoding.ts";
import { etagOf, ifNoneMatchHits, notModified } from "../http/etag.ts";
import { copyResponse } from "../http/response-copy.ts";
import { catalogGeneration, datasetCacheState } from "../storage/cache-state-db.ts";

const LIST_PATH = /^\/v1\/dataset\/?$/;
const DATASET_PATH = /^\/v1\/dataset\/([0-9a-f-]{36})(?:\/([^/]+))?(?:\/([^/]+))?\/?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Immutable snapshots (an explicit version) stay in our edge cache for a day. */
const SNAPSHOT_EDGE_CACHE_CONTROL = "public, max-age=86400";

interface SharedKey {
  request: Request;
  snapshot: boolean;
}

async function sharedCacheKey(c: Context<AppEnv>): Promise<SharedKey | null> {
  const url = new URL(c.req.url);
  const key = (suffix: string) => {
    const keyed = new URL(url);
    keyed.searchParams.set("__pubset_cache", suffix);
    return new Request(keyed.toString(), { method: "GET" });
  };
  if (LIST_PATH.test(url.pathname)) {
    return { request: key(`g${await catalogGeneration(c.env.DB)}`), snapshot: false };
  }
  const match = DATASET_PATH.exec(url.pathname);
  if (!match?.[1]) return null;
  const state = await datasetCacheState(c.env.DB, match[1]);
  if (!state || state.visibility !== "public") return null;
  const encoding = acceptsGzip(clientAcceptEncoding(c.req.raw)) ? "gz" : "id";
  const versionRef = match[2];
  if (versionRef !== undefined && UUID.test(versionRef)) return { request: key(`v-${encoding}`), snapshot: true };
  return { request: key(`s${state.latestSeq}-${encoding}`), snapshot: false };
}

/** Adds a strong ETag to a JSON response that has none (downloads set their own). */
async function withEtag(response: Response): Promise<Response> {
  if (response.headers.has("ETag") || !response.headers.get("content-type")?.includes("json")) return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set("ETag", await etagOf(bytes));
  return new Response(bytes, { status: response.status, headers });
}

function forEdgeCache(response: Response, snapshot: boolean): Response {
  const stored = copyResponse(response);
  if (snapshot) stored.headers.set("Cache-Control", SNAPSHOT_EDGE_CACHE_CONTROL);
  return stored;
}

function fromEdgeCache(response: Response): Response {
  const served = copyResponse(response);
  served.headers.set("Cache-Control", PUBLIC_CACHE_CONTROL);
  return served;
}

function waitUntil(c: Context<AppEnv>, promise: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(promise.catch(() => {}));
  } catch {
    void promise.catch(() => {});
  }
}

export const httpCacheMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
  // A Range request is answered by the route (206 from R2 range reads), never from a stored 200.
  const ranged = c.req.header("range") !== undefined;
  const shared = c.get("caller") === null && !ranged ? await sharedCacheKey(c) : null;
  const conditional = (response: Response) =>
    ifNoneMatchHits(c.req.header("if-none-match"), response.headers.get("ETag") ?? "") ? notModified(response) : response;

  if (shared) {
    const hit = await caches.default.match(shared.request);
    if (hit) return conditional(fromEdgeCache(hit));
  }
  await next();
  if (c.res.status !== 200) return;
  const response = await withEtag(c.res);
  if (shared && response.headers.get("Cache-Control")?.startsWith("public")) {
    waitUntil(c, caches.default.put(shared.request, forEdgeCache(response.clone(), shared.snapshot)));
  }
  c.res = conditional(response);
});
