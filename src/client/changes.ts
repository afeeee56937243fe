// Following the change feed (docs/changes.md): the events after a cursor, oldest first, page
// after page. With `wait`, the iteration never ends by itself: once caught up, each request
// long-polls up to `wait` seconds, so events arrive as they commit; stop it with `signal` or by
// leaving the loop. Each event carries its `cursor`: save it to resume after a restart.
import type { Transport } from "./transport.ts";
import type { ChangeEvent } from "./types.ts";

export interface ChangesOptions {
  /** A cursor from an earlier event or answer, or "now"; absent: from the first event. */
  since?: string;
  /** Seconds (1-25) to hold each request once caught up; absent or 0: stop once caught up. */
  wait?: number;
  /** Events per request (1-1000). */
  limit?: number;
  signal?: AbortSignal;
}

export async function* followChanges(transport: Transport, baseUrl: string, options: ChangesOptions = {}): AsyncGenerator<ChangeEvent, void, undefined> {
  let since = options.since;
  const wait = Math.max(0, Math.min(25, Math.floor(options.wait ?? 0)));
  for (;;) {
    const query = new URLSearchParams();
    if (since !== undefined) query.set("since", since);
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (wait > 0) query.set("wait", String(wait));
    const response = await transport.send({ method: "GET", url: `${baseUrl}/v1/changes${query.size > 0 ? `?${query}` : ""}`, signal: options.signal });
    const page = (await response.json()) as { results: ChangeEvent[]; next: string };
    yield* page.results;
    since = page.next;
    if (page.results.length === 0 && wait === 0) return;
    if (options.signal?.aborted) return;
  }
}
