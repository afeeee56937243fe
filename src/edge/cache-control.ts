// Every Cache-Control value pubset sends (docs/edge-and-caching.md), defined once; cache-policy.ts
// decides which one a response gets. Plain values, so pages and docs can quote them.

/** A path that names a version id never changes: cache it for a year. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";
/** `latest` paths, lists and search: a minute fresh, five more served stale while refetched. */
export const MUTABLE_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300";
/** Signed, private or bookmarked answers: never kept by a shared cache. */
export const PRIVATE_CACHE_CONTROL = "private, no-store";
/** Errors: Workers Cache would otherwise keep a 404 for minutes after a dataset turns public. */
export const ERROR_CACHE_CONTROL = "no-store";
/** The catalog's HTML pages: the anonymous view, the same for everyone, a minute fresh. */
export const CATALOG_PAGE_CACHE_CONTROL = "public, max-age=60";
/** A catalog page that shows something still being built (a version's statistics): never kept. */
export const PENDING_PAGE_CACHE_CONTROL = "no-store";
/** `/openapi.json` and `/docs`: they change only with a deployment. */
export const DOCS_CACHE_CONTROL = "public, max-age=300";
/** The favicon. */
export const ICON_CACHE_CONTROL = "public, max-age=86400";
