// Worker entry for `npm run bench` only (scripts/bench/worker-build.ts bundles this file, not
// src/index.ts): the deployed worker unchanged, plus the /__bench/* baselines of
// src/bench/routes.ts, so the deployed bundle carries none of them.
import { BENCH_PATH, benchRoutes } from "./bench/routes.ts";
import worker from "./index.ts";

// The deployed entry's named exports (its Durable Object classes) are the bench worker's too.
export * from "./index.ts";

const bench = benchRoutes();

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname.startsWith(`${BENCH_PATH}/`)) return bench.fetch(request, env, ctx);
    return worker.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
