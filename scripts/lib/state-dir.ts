// The local state directory (wrangler's --persist-to) shared by `npm start` and `npm run keys`:
// the --persist-to option, else env PUBSET_STATE_DIR, else wrangler's default .wrangler/state.
import { dirname, join } from "node:path";
import { DEFAULT_DEMO_KEY_FILE, resolveUserPath } from "./paths.ts";

export const STATE_DIR_ENV = "PUBSET_STATE_DIR";

export function stateDirFrom(option: string | undefined): string | undefined {
  const dir = option ?? process.env[STATE_DIR_ENV];
  return dir === undefined || dir === "" ? undefined : resolveUserPath(dir);
}

/** Where `npm start` keeps wrangler's full output: beside the demo key, in .pubset/ by default. */
export function logDir(stateDir: string | undefined): string {
  return stateDir === undefined ? dirname(DEFAULT_DEMO_KEY_FILE) : stateDir;
}

/** The demo key belongs with the database it is stored in, so a custom state dir keeps its own. */
export function demoKeyFile(stateDir: string | undefined): string {
  return stateDir === undefined ? DEFAULT_DEMO_KEY_FILE : join(stateDir, "demo-key.json");
}
