// `pubset keys …`: passes its arguments to `node scripts/keys.ts` (create, list, revoke; local
// D1 by default), which only works inside a checkout of this project.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";

const KEYS_SCRIPT = fileURLToPath(new URL("../../../scripts/keys.ts", import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export function runKeys(args: string[]): Promise<number> {
  // The installed package has no scripts/ and no local D1: keys are made in a server's checkout.
  if (!existsSync(KEYS_SCRIPT)) {
    return Promise.reject(new UsageError("`pubset keys` manages the keys of a server you run from a checkout: run `npm run keys -- …` there"));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KEYS_SCRIPT, ...args], { cwd: PROJECT_ROOT, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

export const keys: Command = {
  name: "keys",
  synopsis: "keys create --team T --user U | keys list [--json] | keys revoke ID",
  summary: "manage API keys in the local D1 (runs scripts/keys.ts in this checkout)",
  details: [
    "create --team T --user U   a new key; prints {\"key_id\",\"secret\",\"team\",\"user\"}",
    "list [--json]              every key",
    "revoke ID                  revoke a key",
    "--remote                   the deployed database instead of the local one",
  ],
  example: "pubset keys create --team demo --user ada",
  passthrough: runKeys,
};
