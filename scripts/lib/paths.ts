// Where the operator scripts find the project, its local secrets and the demo key, wherever
// they are started from (npm runs them at the project root; `node scripts/x.ts` may not).
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Local worker secrets, read by `wrangler dev` (and by `npm run keys` for the master key). */
export const DEV_VARS_FILE = join(PROJECT_ROOT, ".dev.vars");

/** The demo key for the default state directory (`.wrangler/state`). */
export const DEFAULT_DEMO_KEY_FILE = join(PROJECT_ROOT, ".pubset", "demo-key.json");

/** A path given on the command line, relative to where the user typed it (npm's INIT_CWD). */
export function resolveUserPath(path: string): string {
  return resolve(process.env.INIT_CWD ?? process.cwd(), path);
}
