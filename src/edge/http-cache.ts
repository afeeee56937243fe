// Conditional GETs and the local stand-in for Workers Cache (docs/edge-and-caching.md). Every 200 GET gets a
// strong ETag and answers a matching If-None-Match with 304.
//
// In production Workers Cache sits in front of the Worker and is purged by tag (src/edge/), so
// the Worker keeps no cache of its own (`EDGE_CACHE = "workers-cache"`). Where Workers Cache does
// not exist (`wrangler dev`, tests, the bench) `EDGE_CACHE = "in-worker"` keeps unsigned public
// reads in the Cache API instead. It cannot be purged by tag, so its keys carry what a response
// depends on (the catalog's write generation for lists, the dataset's latest version for its
// unversioned paths) and every hit first checks that the dataset is still public: a write or a
// flip to private makes older entries unreachable at once.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { acceptsGzip, clientAcceptEncoding } from "./accept-encoding.ts";
import { etagOf, ifNoneMatchHits, notModified } from "./etag.ts";
import { copyResponse } from "./response-copy.ts";
import { catalogGeneration, datasetCacheState } from "./store.ts";
import type { MatchedRoute, RouteTable } from "./route-policy.ts";
import { isUuid } from "../model/ids.ts";


/** True where the Worker keeps its own cache because Workers Cache is not in front of it. */
export function inWorkerCache(env: { EDGE_CACHE?: string }): boolean {
  return env.EDGE_CACHE === "in-worker";
}

/**
 * Hono's `c.res = x` copies the previous response's headers onto `x` and rebuilds it with
 * `new Response(body, x)`, which drops `encodeBody: "manual"`; clearing it first avoids both.
 */
export function replaceResponse(c: Context<AppEnv>, response: Response): void {
  c.res = undefined;
  c.res = response;
}

async function localCacheKey(c: Context<AppEnv>, route: MatchedRoute | null): Promise<Request | null> {
  const url = new URL(c.req.url);
  const key = (suffix: string) => {
    const keyed = new URL(url);
    keyed.searchParams.set("__pubset_cache", suffix);
    return new Request(keyed.toString(), { method: "GET" });
  };
  if (route?.policy.cache === "catalog") return key(`g${await catalogGeneration(c.env.DB)}`);
  const id = route?.policy.cache === "dataset" ? route.params.id : undefined;
  if (id === undefined || !isUuid(id)) return null;
  const state = await datasetCacheState(c.env.DB, id);
  if (!state || state.visibility !== "public") return null;
  const encoding = acceptsGzip(clientAcceptEncoding(c.req.raw)) ? "gz" : "id";
  const versionRef = route?.params.version;
  if (versionRef !== undefined && isUuid(versionRef)) return key(`v-${encoding}`);
  return key(`s${state.latestSeq}-${encoding}`);
}

/** Adds a strong ETag to a JSON response that has none (records and downloads set their own). */
async function withEtag(response: Response): Promise<Response> {
  if (response.headers.has("ETag") || !response.headers.get("content-type")?.includes("json")) return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  const copy = copyResponse(response, bytes);
  copy.headers.set("ETag", await etagOf(bytes));
  return copy;
}

function waitUntil(c: Context<AppEnv>, promise: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(promise.catch(() => {}));
  } catch {
    void promise.catch(() => {});
  }
}

function isAnonymous(c: Context<AppEnv>): boolean {
  return c.get("caller") === null && !c.req.raw.headers.has("X-D1-Bookmark");
}

export function httpCacheMiddleware(routes: RouteTable) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    // A Range request is answered by the route (206 from R2 range reads), never from a stored 200.
    const ranged = c.req.header("range") !== undefined;
    const local = inWorkerCache(c.env) && isAnonymous(c) && !ranged ? await localCacheKey(c, routes.match(c.req.method, c.req.path)) : null;
    const conditional = (response: Response) =>
      ifNoneMatchHits(c.req.header("if-none-match"), response.headers.get("ETag") ?? "") ? notModified(response) : response;

    if (local) {
      const hit = await caches.default.match(local);
      if (hit) return conditional(copyResponse(hit));
    }
    await next();
    if (c.res.status !== 200) return;
    const response = await withEtag(c.res);
    if (local && response.headers.get("Cache-Control")?.startsWith("public")) {
      waitUntil(c, caches.default.put(local, copyResponse(response.clone())));
    }
    const answer = conditional(response);
    if (answer !== c.res) replaceResponse(c, answer);
  });
}
