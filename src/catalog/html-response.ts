// Every catalog page leaves through here, so each one carries the same headers: HTML in
// UTF-8, a minute of public caching (the catalog is the anonymous view, the same for
// everyone) and a Content-Security-Policy that allows nothing but inline styles.
export const CATALOG_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const CATALOG_CACHE_CONTROL = "public, max-age=60";

export function catalogHeaders(): Headers {
  return new Headers({
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": CATALOG_CACHE_CONTROL,
    "Content-Security-Policy": CATALOG_CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  });
}

/** Renders a page (hono/jsx escapes every text and attribute value) into a full response. */
export async function htmlResponse(page: string | Promise<string>, status = 200): Promise<Response> {
  const body = "<!doctype html>" + (await page);
  return new Response(body, { status, headers: catalogHeaders() });
}
