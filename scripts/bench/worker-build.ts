// A frozen build of the worker for the bench to serve. `wrangler dev` rebuilds and restarts a
// bundled worker whenever esbuild sees a change (even a new entry in node_modules from a test
// run), which aborts in-flight uploads (503 "worker restarted mid-request") and would mix two
// versions of the code into one run. So: bundle once, then serve that file with --no-bundle.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/paths.ts";
import { runBounded, WRANGLER_BIN } from "./run-bounded.ts";

const BUILD_TIMEOUT_MS = 180_000;
/** What `wrangler dev` reads besides the script: bindings and vars, and the local secrets. */
const COPIED = ["wrangler.toml", ".dev.vars"];

export interface WorkerBuild {
  /** Where to run `wrangler dev`. */
  dir: string;
  /** The bundled entry, relative to `dir`. */
  script: string;
  /** The deployed entry's bundle (src/index.ts): bytes, and gzip bytes (what the platform's size limit counts). */
  bundleBytes: number;
  bundleGzipBytes: number;
}

/** The bench measures throughput, so its copy of wrangler.toml lifts the rate limits (docs/edge-and-caching.md). */
export const BENCH_RATE_LIMIT = 1_000_000;

function liftRateLimits(file: string): void {
  const toml = readFileSync(file, "utf8")
    .replace(/simple = \{ limit = \d+, period = (\d+) \}/g, `simple = { limit = ${BENCH_RATE_LIMIT}, period = $1 }`)
    .replace(/^(RATE_LIMIT_(?:SIGNED|ANONYMOUS)) = "\d+\/(\d+)"$/gm, `$1 = "${BENCH_RATE_LIMIT}/$2"`);
  writeFileSync(file, toml);
}

/**
 * The bench's own entry: the deployed worker plus the /__bench/* baselines, which the deployed
 * entry (src/index.ts, wrangler.toml's `main`) does not carry.
 */
const BENCH_ENTRY = join("src", "bench-entry.ts");

/** Bundles the bench entry with `wrangler deploy --dry-run` into `dir`, beside copies of its config. */
export async function buildWorker(dir: string): Promise<WorkerBuild> {
  mkdirSync(dir, { recursive: true });
  for (const name of COPIED) cpSync(join(PROJECT_ROOT, name), join(dir, name));
  liftRateLimits(join(dir, "wrangler.toml"));
  const args = [WRANGLER_BIN, "deploy", BENCH_ENTRY, "--dry-run", "--outdir", join(dir, "dist")];
  await runBounded("wrangler deploy --dry-run", args, PROJECT_ROOT, BUILD_TIMEOUT_MS);
  // The deployed entry's own bundle, for its size (the bench entry adds the /__bench routes).
  const deployed = join(dir, "deployed");
  await runBounded("wrangler deploy --dry-run (deployed entry)", [WRANGLER_BIN, "deploy", "--dry-run", "--outdir", deployed], PROJECT_ROOT, BUILD_TIMEOUT_MS);
  const bundle = readFileSync(join(deployed, "index.js"));
  return { dir, script: join("dist", "bench-entry.js"), bundleBytes: bundle.length, bundleGzipBytes: gzipSync(bundle).length };
}
