// Renders the edge measurements (scripts/bench/edge.ts) as markdown for the bench report.
import { CONCURRENCY, type EdgeResults } from "./edge.ts";
import type { Outcome } from "./results.ts";

function failed(outcome: Outcome<unknown>): string {
  return outcome.ok ? "" : `**failed**: ${outcome.error.replaceAll("|", "\\|").replaceAll("\n", " ")}`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

export function renderEdge(edge: EdgeResults): string {
  const d1 = edge.d1.ok
    ? table(
        ["request", "D1 round trips, production (every request reaching the Worker)", "local in-worker cache: miss", "local: hit"],
        edge.d1.value.map((r) => [r.request, `**${r.production}**`, r.localMiss, r.localHit]),
      )
    : failed(edge.d1);
  const throughput = edge.throughput.ok
    ? table(
        ["route", "requests", "req/s", "median latency"],
        edge.throughput.value.map((r) => [r.label, String(r.requests), `**${(r.requests / r.seconds).toFixed(0)}**`, `${r.p50Ms.toFixed(1)} ms`]),
      )
    : failed(edge.throughput);
  const s = edge.startup;
  const startup = s.ok
    ? `Bundle ${kib(s.value.bundleBytes)} (${kib(s.value.bundleGzipBytes)} gzip; the platform allows 3 MB gzip on Free, 10 MB on Paid). ` +
      `A fresh \`wrangler dev\` answered its first request ${(s.value.readyMs / 1000).toFixed(1)} s after it was spawned (wrangler's and workerd's own start included, polled every 250 ms: an upper bound for the isolate's start). ` +
      `On that fresh worker the first search took ${s.value.firstGetMs.toFixed(0)} ms, then ${s.value.warmGetMs.toFixed(1)} ms (median of 20).`
    : failed(s);
  return [
    "**D1 round trips per request** (one per statement or batch, counted by the bench's entry around the real binding, `X-Bench-D1`). Production is `EDGE_CACHE=workers-cache`: cache hits never reach the Worker, so every request counted here is a miss. The local in-worker cache (`EDGE_CACHE=in-worker`, `npm start`) checks the dataset's visibility on each hit. A signed write's count includes recording its nonce; an append's commit runs in its dataset's sequencer (a Durable Object) and is not in the request's count:",
    "",
    d1,
    "",
    `**Anonymous GET throughput**, ${CONCURRENCY} concurrent clients for 5 s each over HTTP/1.1 keep-alive through wrangler's local proxy (rate limits lifted for the bench):`,
    "",
    throughput,
    "",
    `**Cold start.** ${startup}`,
    "",
  ].join("\n");
}
