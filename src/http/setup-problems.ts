// A server that is not set up yet (an unmigrated local D1, as a plain `wrangler dev` on a fresh
// clone gives, or no usable KEY_ENCRYPTION_KEY) answers 503 with the command that fixes it, not
// a bare 500. Recognised when the failure happens, so no request pays an extra query for it.
import { MasterKeyError } from "../auth/key-secrets.ts";
import { ApiError } from "../model/errors.ts";

export const MIGRATE_COMMAND = "npx wrangler d1 migrations apply pubset --local";

const NOT_INITIALIZED = `The database has no tables yet. Apply the migrations with \`${MIGRATE_COMMAND}\` (\`--remote\` for the deployed database), or run \`npm start\`, which applies them before it serves.`;

const KEY_MISSING =
  "KEY_ENCRYPTION_KEY is not set, so signed requests cannot be checked. Locally, `npm start` or `npm run keys` writes one to .dev.vars; restart `wrangler dev` so it reads it. Deployed: `npx wrangler secret put KEY_ENCRYPTION_KEY`.";

const KEY_INVALID =
  "KEY_ENCRYPTION_KEY is not 32 bytes of base64, so signed requests cannot be checked. Put the value the keys were made with in .dev.vars (locally; then restart `wrangler dev`) or with `npx wrangler secret put KEY_ENCRYPTION_KEY`.";

function messages(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) parts.push(e.message);
  return parts.join(" ");
}

/** The 503 for a set-up failure, or null when `error` is something else. */
export function setupProblem(error: unknown): ApiError | null {
  if (error instanceof MasterKeyError) return new ApiError("not_configured", error.missing ? KEY_MISSING : KEY_INVALID);
  if (/no such table/i.test(messages(error))) return new ApiError("not_initialized", NOT_INITIALIZED);
  return null;
}

/** Logs what an operator must do, once per failing request, in the dev server's console. */
export function logSetupProblem(problem: ApiError): void {
  console.error(`pubset is not set up (${problem.code}): ${problem.detail}`);
}
