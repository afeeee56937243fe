// Worker entry for `npm run bench` only (scripts/bench/worker-build.ts bundles this file, not
// src/index.ts): the deployed worker unchanged, plus the /__bench/* baselines of
// src/bench/routes.ts, so the deployed bundle carries none of them.
import { countedDatabase, d1Count } from "./bench/d1-count.ts";
import { countedLimiter, limiterCount } from "./bench/limiter-count.ts";
import { countedBucket, r2Count } from "./bench/r2-count.ts";
import { BENCH_PATH, benchRoutes } from "./bench/routes.ts";
import worker from "./index.ts";

// The deployed entry's named exports (its Durable Object classes) are the bench worker's too.
export * from "./index.ts";

const bench = benchRoutes();

/**
 * The deployed worker with its D1 round trips counted and reported in `X-Bench-D1`, and its R2
 * reads until the answer starts in `X-Bench-R2` (a streamed body may read more after), with the
 * milliseconds waited on them (and on D1 in `X-Bench-D1`, on the rate limiter in `X-Bench-Limit`);
 * `X-Bench-Time` is the Worker's time until its answer starts. Milliseconds to a tenth.
 */
async function countedFetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const count = d1Count();
  const r2 = r2Count();
  const limiter = limiterCount();
  const counted = {
    ...env,
    DB: countedDatabase(env.DB, count),
    CONTENT: countedBucket(env.CONTENT, r2),
    SIGNED_RATE_LIMIT: countedLimiter(env.SIGNED_RATE_LIMIT, limiter),
    ANONYMOUS_RATE_LIMIT: countedLimiter(env.ANONYMOUS_RATE_LIMIT, limiter),
  };
  const started = performance.now();
  const response = await worker.fetch(request, counted, ctx);
  const answer = new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers, encodeBody: response.headers.has("Content-Encoding") ? "manual" : "automatic" });
  const ms = (value: number) => value.toFixed(1);
  answer.headers.set("X-Bench-D1", `queries=${count.queries}; writes=${count.writes}; wait=${ms(count.waitMs)}`);
  answer.headers.set("X-Bench-R2", `reads=${r2.reads}; bytes=${r2.bytes}; wait=${ms(r2.waitMs)}`);
  answer.headers.set("X-Bench-Limit", `calls=${limiter.calls}; wait=${ms(limiter.waitMs)}`);
  answer.headers.set("X-Bench-Time", `worker=${ms(performance.now() - started)}`);
  return answer;
}

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname.startsWith(`${BENCH_PATH}/`)) return bench.fetch(request, env, ctx);
    return countedFetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
