// Answers of queries kept by version and normalised query (docs/queries.md#caching): a version's
// answer to a question never changes, so once the request has been allowed to read the version
// (its one D1 batch), any spelling of the same question, on the version id or on `latest`, is
// answered from here without reading R2. A named Cache API cache under a host that routes
// nowhere, so its entries are reached only through this module, after the access check.
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { IMMUTABLE_CACHE_CONTROL } from "../edge/cache-control.ts";

const CACHE_NAME = "pubset-query-answers";
const KEY_ORIGIN = "https://query-answers.invalid";

/** The key of `route`'s answer to the normalised query `cacheKey` of version `versionId`. */
export function answerKey(route: "rows" | "rows.csv", versionId: string, cacheKey: string, window?: { offset: number; limit: number }): Request {
  const url = new URL(`${KEY_ORIGIN}/${versionId}/${route}`);
  url.search = cacheKey;
  if (window) {
    url.searchParams.set("offset", String(window.offset));
    url.searchParams.set("limit", String(window.limit));
  }
  return new Request(url.toString(), { method: "GET" });
}

/**
 * The kept answer, unless the request says `Cache-Control: no-cache` (RFC 9111 §5.2.1.4: a cache
 * must not answer from a stored response without revalidating it; here the answer is computed
 * again, and kept again).
 */
export async function cachedAnswer(key: Request, request: Request): Promise<Response | undefined> {
  if (/\bno-cache\b/i.test(request.headers.get("Cache-Control") ?? "")) return undefined;
  return (await caches.open(CACHE_NAME)).match(key);
}

function waitUntil(c: Context<AppEnv>, promise: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(promise.catch(() => {}));
  } catch {
    void promise.catch(() => {});
  }
}

/** Keeps `body` (with `headers`) as the answer under `key`, after the response has gone. */
export function keepAnswer(c: Context<AppEnv>, key: Request, body: BodyInit, headers: Record<string, string>): void {
  const stored = new Response(body, { headers: { ...headers, "Cache-Control": IMMUTABLE_CACHE_CONTROL } });
  waitUntil(
    c,
    caches.open(CACHE_NAME).then((cache) => cache.put(key, stored)),
  );
}
