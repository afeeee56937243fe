// One policy per route, declared beside its createRoute or app.get (docs/edge-and-caching.md
// "Route policy"): how a shared cache may keep the answer and under which purge tags, whether
// the route must be signed, and whether it honours Idempotency-Key, If-Match and resumable
// uploads. The cache policy, the local cache, the OpenAPI document and the upload OPTIONS answer
// read it from a table built from the app's own routes, so no path pattern is written twice.
import type { RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";

/**
 * - `dataset`: a dataset's data, tagged `dataset:{id}`; immutable when `{version}` is a version id.
 * - `catalog`: lists, search and the catalog's own pages, tagged `catalog`; short-lived.
 * - `dataset-page`: a dataset's HTML page, tagged with both.
 * - `none`: no purge tags; the route's own Cache-Control stands (writes, uploads, docs).
 */
export type CacheClass = "dataset" | "catalog" | "dataset-page" | "none";
export type LinkRelation = "next" | "enclosure" | "describedby";

export interface RoutePolicy {
  cache: CacheClass;
  /** A write: only a signed request by the owning team may make it. */
  signed: boolean;
  /** `Idempotency-Key` replays the first answer (docs/api.md#idempotent-writes). */
  idempotent: boolean;
  /** `If-Match: "<version>"` makes the write conditional on the latest version. */
  ifMatch: boolean;
  /**
   * Resumable uploads (docs/resumable-uploads.md): `start` where `Upload-Complete: ?0` creates
   * one instead of writing, `append` on an upload's own resource; null elsewhere.
   */
  uploads: "start" | "append" | null;
  /** Link relations a 200 carries (documented in OpenAPI). */
  links: readonly LinkRelation[];
}

const NOTHING: RoutePolicy = { cache: "none", signed: false, idempotent: false, ifMatch: false, uploads: null, links: [] };

export function readPolicy(cache: CacheClass, links: readonly LinkRelation[] = []): RoutePolicy {
  return { ...NOTHING, cache, links };
}

export function writePolicy(options: { ifMatch?: boolean; uploads?: RoutePolicy["uploads"] } = {}): RoutePolicy {
  return { ...NOTHING, signed: true, idempotent: true, ifMatch: options.ifMatch ?? false, uploads: options.uploads ?? null };
}

/** Routes outside the data: the docs, the favicon, an upload's own resource. */
export const UNCACHED: RoutePolicy = NOTHING;

const DECLARED = new WeakMap<object, RoutePolicy>();

/** Route middleware that carries `policy` into the route table; running it does nothing else. */
export function declarePolicy(policy: RoutePolicy): MiddlewareHandler {
  const marker: MiddlewareHandler = (_c, next) => next();
  DECLARED.set(marker, policy);
  return marker;
}

/** `route` (a createRoute config) with its policy declared in its route middleware. */
export function withPolicy<R extends RouteConfig>(route: R, policy: RoutePolicy): R {
  const existing = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
  return { ...route, middleware: [declarePolicy(policy), ...existing] };
}

/** Hono wraps a sub-app's handlers that have their own error handler, keeping the original here. */
const COMPOSED_HANDLER = "__COMPOSED_HANDLER";

function declaredPolicy(handler: unknown): RoutePolicy | undefined {
  if (typeof handler !== "function") return undefined;
  return DECLARED.get(handler) ?? declaredPolicy((handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER]);
}

export interface MatchedRoute {
  policy: RoutePolicy;
  params: Record<string, string>;
}

/** Every route's policy by method and path, loaded from the app's routes once they are all mounted. */
export class RouteTable {
  readonly #router = new TrieRouter<RoutePolicy>();
  readonly #byTemplate = new Map<string, RoutePolicy>();

  load(routes: readonly { method: string; path: string; handler: unknown }[]): void {
    for (const route of routes) {
      const policy = declaredPolicy(route.handler);
      if (!policy) continue;
      this.#router.add(route.method, route.path, policy);
      this.#byTemplate.set(`${route.method} ${route.path}`, policy);
    }
  }

  /** The first route (in mounting order, as Hono dispatches) that answers `method` on `pathname`. */
  match(method: string, pathname: string): MatchedRoute | null {
    const [matches] = this.#router.match(method === "HEAD" ? "GET" : method, pathname) as [[RoutePolicy, Record<string, string>][]];
    const first = matches[0];
    return first ? { policy: first[0], params: first[1] } : null;
  }

  /** The policy of an OpenAPI operation (`/v1/dataset/{id}`). */
  forOperation(method: string, openApiPath: string): RoutePolicy | null {
    return this.#byTemplate.get(`${method.toUpperCase()} ${openApiPath.replace(/\{([^}]+)\}/g, ":$1")}`) ?? null;
  }

  /** True when some write on `pathname` takes a resumable upload (for the OPTIONS answer). */
  takesUploads(pathname: string): boolean {
    return ["POST", "PUT", "PATCH"].some((method) => (this.match(method, pathname)?.policy.uploads ?? null) !== null);
  }
}
