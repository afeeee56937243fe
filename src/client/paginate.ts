// Async iteration over a paginated list: one page per request, following `Link: rel="next"`
// (docs/api.md#lists) until there is none, so callers never see a cursor.
import { nextLinkTarget } from "./link-header.ts";
import type { Transport } from "./transport.ts";

export async function* paginate<T>(transport: Transport, firstUrl: string, signal?: AbortSignal): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let url: string | null = firstUrl;
  while (url !== null && !seen.has(url)) {
    seen.add(url);
    const response = await transport.send({ method: "GET", url, signal });
    const page = (await response.json()) as { results: T[] };
    yield* page.results;
    const next = nextLinkTarget(response.headers.get("link"));
    url = next === null ? null : new URL(next, url).href;
  }
}
