// The master key that seals key secrets must be the one the worker runs with: .dev.vars for the
// local worker, and for the deployed one the operator's copy of its `wrangler secret`.
import { isMasterKey } from "../../src/auth/key-secrets.ts";
import { UsageError } from "./cli-errors.ts";
import type { D1Target } from "./d1.ts";
import { ensureMasterKey, MASTER_KEY_VAR } from "./dev-vars.ts";
import { DEV_VARS_FILE } from "./paths.ts";

export const REMOTE_MASTER_KEY_ENV = "PUBSET_KEY_ENCRYPTION_KEY";

export function masterKeyFor(target: D1Target): string {
  if (target.kind === "local") {
    const { value: key, created } = ensureMasterKey(DEV_VARS_FILE);
    if (created) process.stderr.write(`Wrote a new local ${MASTER_KEY_VAR} to ${DEV_VARS_FILE}\n`);
    if (!isMasterKey(key)) throw new Error(`${MASTER_KEY_VAR} in ${DEV_VARS_FILE} is not 32 bytes of base64`);
    return key;
  }
  const key = process.env[REMOTE_MASTER_KEY_ENV];
  if (key === undefined || key.trim() === "") {
    throw new UsageError(
      `--remote needs the deployed worker's master key: set ${REMOTE_MASTER_KEY_ENV} to the value given to ` +
        `\`wrangler secret put ${MASTER_KEY_VAR}\``,
    );
  }
  if (!isMasterKey(key)) throw new UsageError(`${REMOTE_MASTER_KEY_ENV} must be 32 bytes, base64-encoded`);
  return key.trim();
}
