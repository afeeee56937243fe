// The demo key `npm start` hands out: kept in a JSON file beside the state it belongs to and
// replaced whenever the local database no longer accepts it (deleted, revoked, or sealed under
// a different master key).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createKey, isKeyUsable, type NewKey } from "./api-keys.ts";
import type { D1Target } from "./d1.ts";

export const DEMO_TEAM = "demo";
export const DEMO_USER = "demo";

function readDemoKey(file: string): NewKey | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { key_id, secret } = parsed as Record<string, unknown>;
  if (typeof key_id !== "string" || typeof secret !== "string") return undefined;
  return { key_id, secret, team: DEMO_TEAM, user: DEMO_USER };
}

function writeDemoKey(file: string, key: NewKey): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(key, null, 2) + "\n", { mode: 0o600 });
  renameSync(temp, file);
}

export async function ensureDemoKey(
  target: D1Target,
  masterKey: string,
  file: string,
): Promise<{ key: NewKey; created: boolean }> {
  const existing = readDemoKey(file);
  if (existing && (await isKeyUsable(target, masterKey, existing.key_id, existing.secret))) {
    return { key: existing, created: false };
  }
  const key = await createKey(target, masterKey, DEMO_TEAM, DEMO_USER);
  writeDemoKey(file, key);
  return { key, created: true };
}
