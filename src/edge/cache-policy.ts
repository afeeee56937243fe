// Which responses a shared cache may keep, for how long, and under which purge tags
// (docs/edge-and-caching.md), applied by the middleware below as the last word on every
// response's caching headers. Routes say only "public" or "private", and their cache class
// (route-policy.ts); this turns that into the wire policy (immutable or mutable Cache-Control,
// Cache-Tag, Vary, no-store for errors), so Workers Cache (checked before the Worker runs) and
// the local in-worker cache agree.
import { createMiddleware } from "hono/factory";
import { isUuid } from "../model/ids.ts";
import { ERROR_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL, MUTABLE_CACHE_CONTROL, PRIVATE_CACHE_CONTROL } from "./cache-control.ts";
import type { MatchedRoute, RouteTable } from "./route-policy.ts";
import type { AppEnv } from "../app-env.ts";
import { copyResponse } from "./response-copy.ts";
import { replaceResponse } from "./http-cache.ts";

/** The tag every list and catalog page carries; purged whenever any dataset leaves public view. */
export const CATALOG_TAG = "catalog";

export function datasetTag(datasetId: string): string {
  return `dataset:${datasetId}`;
}

/**
 * Request headers a public response must vary on: a signed request or one that carries a D1
 * bookmark must never be answered from an entry stored for an anonymous, bookmark-less one
 * (Workers Cache only bypasses itself for `Authorization`, which RFC 9421 requests lack).
 */
export const PUBLIC_VARY = ["Signature", "X-D1-Bookmark"];

export interface PathPolicy {
  tags: string[];
  /** True when the path names an explicit version id. */
  immutable: boolean;
}

/** Purge tags and mutability of a matched route; null for routes outside the data (docs, uploads). */
export function routeCachePolicy(route: MatchedRoute | null): PathPolicy | null {
  const id = route?.params.id;
  switch (route?.policy.cache) {
    case "catalog":
      return { tags: [CATALOG_TAG], immutable: false };
    case "dataset": {
      if (id === undefined) return null;
      const version = route.params.version;
      return { tags: [datasetTag(id)], immutable: version !== undefined && isUuid(version) };
    }
    case "dataset-page":
      return id === undefined ? null : { tags: [datasetTag(id), CATALOG_TAG], immutable: false };
    default:
      return null;
  }
}

function addVary(headers: Headers, names: string[]): void {
  const present = (headers.get("Vary") ?? "").split(",").map((v) => v.trim()).filter((v) => v !== "");
  const lower = new Set(present.map((v) => v.toLowerCase()));
  for (const name of names) if (!lower.has(name.toLowerCase())) present.push(name);
  headers.set("Vary", present.join(", "));
}

/**
 * Rewrites `headers` of a response to `request` by the rules above. A route marks a response
 * public with any `public` Cache-Control; everything else leaves private or no-store. API paths
 * get the immutable or mutable policy; HTML pages keep their own (they answer everyone alike,
 * signed or not) and gain only their tags.
 */
export function applyCachePolicy(request: Request, route: MatchedRoute | null, status: number, headers: Headers): void {
  if (status >= 400) {
    headers.set("Cache-Control", ERROR_CACHE_CONTROL);
    headers.delete("Cache-Tag");
    return;
  }
  const declared = headers.get("Cache-Control");
  if (declared === null) {
    headers.set("Cache-Control", ERROR_CACHE_CONTROL);
    return;
  }
  if (!/^\s*public\b/i.test(declared)) return;
  const pathname = new URL(request.url).pathname;
  const policy = routeCachePolicy(route);
  if (!pathname.startsWith("/v1/")) {
    if (policy !== null) headers.set("Cache-Tag", policy.tags.join(","));
    return;
  }
  if (request.headers.has("X-D1-Bookmark") || request.headers.has("Signature") || request.headers.has("Signature-Input")) {
    headers.set("Cache-Control", PRIVATE_CACHE_CONTROL);
    return;
  }
  if (policy === null) return;
  headers.set("Cache-Control", policy.immutable ? IMMUTABLE_CACHE_CONTROL : MUTABLE_CACHE_CONTROL);
  headers.set("Cache-Tag", policy.tags.join(","));
  addVary(headers, PUBLIC_VARY);
}

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
