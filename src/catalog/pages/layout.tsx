// The frame every catalog page shares: document language, viewport, the inline stylesheet,
// a skip link, the site header and footer (/docs shares it too). One h1 per page comes from the
// page itself. Every page leaves through htmlResponse, so each carries the same headers: HTML in
// UTF-8, a minute of public caching (the catalog is the anonymous view, the same for everyone)
// and a Content-Security-Policy that allows nothing but inline styles.
import type { Child } from "hono/jsx";
import { CATALOG_CSS } from "../styles.ts";
import { CATALOG_PAGE_CACHE_CONTROL } from "../../edge/cache-control.ts";

export interface LayoutProps {
  title: string;
  description?: string;
  /** More of <head> (the /docs page's own stylesheet). */
  head?: Child;
  /** What follows <main> in <body> (the /docs page's interactive reference). */
  after?: Child;
  children?: Child;
}

// LRM, RLM, ALM and the embedding, override and isolate controls (Unicode UAX #9 §2).
const BIDI_CONTROLS = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g;

function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, "");
}

export function Layout({ title, description, head, after, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* Plain text (docs/catalog.md): no direction marks, which tabs and bookmarks would show,
            and none of the publisher's, so no override reaches " · pubset"; the body isolates the name. */}
        <title>{title === "" ? "pubset" : `${withoutBidiControls(title)} · pubset`}</title>
        {description ? <meta name="description" content={description} /> : null}
        <link rel="icon" href="data:," />
        {/* A compile-time constant, never data: the one raw string in the catalog. */}
        <style dangerouslySetInnerHTML={{ __html: CATALOG_CSS }} />
        {head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <div class="wrap">
            <a class="brand" href="/">
              pubset
            </a>
            <nav aria-label="Site">
              <a href="/">Datasets</a>
              <a href="/docs">API reference</a>
            </nav>
          </div>
        </header>
        <main id="main" class="wrap" tabindex={-1}>
          {children}
        </main>
        <footer>
          <div class="wrap">
            Public datasets only. The same data is served by the <a href="/docs">HTTP API</a> at <code>/v1/dataset</code>.
          </div>
        </footer>
        {after}
      </body>
    </html>
  );
}

export const CATALOG_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";


export function catalogHeaders(): Headers {
  return new Headers({
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": CATALOG_PAGE_CACHE_CONTROL,
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
