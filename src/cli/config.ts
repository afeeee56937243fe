// Where `pubset` finds its server and key: env PUBSET_URL / PUBSET_KEY_ID / PUBSET_SECRET win,
// then the config file that `pubset login` writes ($PUBSET_CONFIG, else
// ~/.config/pubset/config.json, mode 0600), then the default URL of `npm start`.
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_URL } from "../client/index.ts";
import { invokedAs } from "./invocation.ts";
import { UsageError } from "./cli-error.ts";

export interface StoredConfig {
  url?: string;
  key_id?: string;
  secret?: string;
}

export interface ResolvedConfig {
  url: string;
  key: { keyId: string; secret: string } | undefined;
  file: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.PUBSET_CONFIG;
  return override !== undefined && override !== "" ? override : join(homedir(), ".config", "pubset", "config.json");
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function readStoredConfig(file: string, warn: (message: string) => void, self = "pubset"): StoredConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return {};
  }
  if ((statSync(file).mode & 0o077) !== 0) warn(`${file} is readable by others; run: chmod 600 ${file}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON; run \`${self} login\` again`);
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  return { url: nonEmpty(record.url), key_id: nonEmpty(record.key_id), secret: nonEmpty(record.secret) };
}

export function resolveConfig(env: NodeJS.ProcessEnv, urlFlag: string | undefined, warn: (message: string) => void): ResolvedConfig {
  const file = configPath(env);
  const stored = readStoredConfig(file, warn, invokedAs(env));
  const url = nonEmpty(urlFlag) ?? nonEmpty(env.PUBSET_URL) ?? stored.url ?? DEFAULT_URL;
  const keyId = nonEmpty(env.PUBSET_KEY_ID) ?? stored.key_id;
  const secret = nonEmpty(env.PUBSET_SECRET) ?? stored.secret;
  return { url, key: keyId !== undefined && secret !== undefined ? { keyId, secret } : undefined, file };
}

/** Writes the file readable by its owner only (0600), atomically. */
export function writeStoredConfig(file: string, config: Required<StoredConfig>): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
