// A frozen build of the worker for the bench to serve. `wrangler dev` rebuilds and restarts a
// bundled worker whenever esbuild sees a change (even a new entry in node_modules from a test
// run), which aborts in-flight uploads (503 "worker restarted mid-request") and would mix two
// versions of the code into one run. So: bundle once, then serve that file with --no-bundle.
import { cpSync, mkdirSync } from "node:fs";
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
  const args = [WRANGLER_BIN, "deploy", BENCH_ENTRY, "--dry-run", "--outdir", join(dir, "dist")];
  await runBounded("wrangler deploy --dry-run", args, PROJECT_ROOT, BUILD_TIMEOUT_MS);
  return { dir, script: join("dist", "bench-entry.js") };
}
