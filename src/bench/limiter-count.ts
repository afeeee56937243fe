// Counts a request's calls to the Rate Limiting bindings for `npm run bench`: the bench entry
// (src/bench-entry.ts) wraps both bindings and reports the calls and the time waited on them in
// `X-Bench-Limit`, beside D1's and R2's (docs/performance.md "Queries").
import { type IoWait, waited } from "./io-wait.ts";

export interface LimiterCount extends IoWait {
  calls: number;
}

export function limiterCount(): LimiterCount {
  return { calls: 0, waitMs: 0, inFlight: 0, waitStarted: 0 };
}

/** `binding` with every `limit` call added to `count` (both bindings share one count). */
export function countedLimiter(binding: RateLimit, count: LimiterCount): RateLimit {
  return {
    limit: (options) => {
      count.calls++;
      return waited(count, () => binding.limit(options));
    },
  };
}
