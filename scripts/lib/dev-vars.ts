// The local master key lives in .dev.vars (KEY=value lines, read by `wrangler dev` with dotenv
// rules: the last assignment wins). We add it when missing and never touch the other lines.
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { newMasterKey } from "../../src/auth/key-secrets.ts";

export const MASTER_KEY_VAR = "KEY_ENCRYPTION_KEY";

/** The value of `name` in dotenv text, or undefined when it is not assigned. */
export function readDevVar(text: string, name: string): string | undefined {
  let value: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || match[1] !== name) continue;
    const raw = match[2] ?? "";
    const quoted = /^(["'`])(.*)\1$/.exec(raw);
    value = quoted ? (quoted[2] ?? "") : raw.replace(/\s+#.*$/, "");
  }
  return value === "" ? undefined : value;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Returns the master key from `file`, first creating the file or appending the variable with a
 * fresh key when missing. The file appears whole or not at all (temp file + link/rename), so
 * two scripts starting together never see it half written.
 */
export function ensureMasterKey(file: string): { value: string; created: boolean } {
  const existing = readIfExists(file);
  const current = existing === undefined ? undefined : readDevVar(existing, MASTER_KEY_VAR);
  if (current !== undefined) return { value: current, created: false };

  const line = `${MASTER_KEY_VAR}=${newMasterKey()}\n`;
  const temp = `${file}.${process.pid}.tmp`;
  if (existing === undefined) {
    writeFileSync(temp, line, { mode: 0o600 });
    try {
      linkSync(temp, file);
    } catch (error: unknown) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      unlinkSync(temp);
    }
  } else {
    const separator = existing === "" || existing.endsWith("\n") ? "" : "\n";
    writeFileSync(temp, existing + separator + line, { mode: 0o600 });
    renameSync(temp, file);
  }
  const value = readDevVar(readFileSync(file, "utf8"), MASTER_KEY_VAR);
  if (value === undefined) throw new Error(`could not set ${MASTER_KEY_VAR} in ${file}`);
  return { value, created: true };
}
