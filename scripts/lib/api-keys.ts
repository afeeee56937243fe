// API key records in D1 (docs/api.md#signing-requests): create with a sealed secret, list, revoke. The worker reads
// the same rows (src/auth/store.ts); the secret itself is only ever returned to the caller.
import { newKeyMaterial, openSecret, sealSecret } from "../../src/auth/key-secrets.ts";
import type { D1Target } from "./d1.ts";
import { queryDb } from "./db.ts";
import { sql } from "./sql.ts";

const ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value);
}

export function isValidKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

export interface NewKey {
  key_id: string;
  secret: string;
  team: string;
  user: string;
}

export interface KeyListing {
  key_id: string;
  team: string;
  user: string;
  created: string;
  revoked: string | null;
}

function assertIds(team: string, user: string): void {
  if (!isValidId(team) || !isValidId(user)) throw new Error("team and user must be 1-64 characters of [A-Za-z0-9._-]");
}

/** Creates the team, user and membership when missing, then a key for them, in one batch. */
export async function createKey(target: D1Target, masterKey: string, team: string, user: string): Promise<NewKey> {
  assertIds(team, user);
  const { keyId, secret } = newKeyMaterial();
  const sealed = await sealSecret(masterKey, keyId, secret);
  const now = new Date().toISOString();
  await queryDb(
    target,
    [
      sql`INSERT OR IGNORE INTO teams (id, created) VALUES (${team}, ${now})`,
      sql`INSERT OR IGNORE INTO users (id, created) VALUES (${user}, ${now})`,
      sql`INSERT OR IGNORE INTO memberships (team_id, user_id) VALUES (${team}, ${user})`,
      sql`INSERT INTO api_keys (key_id, team_id, user_id, secret_iv, secret_ciphertext, created)
          VALUES (${keyId}, ${team}, ${user}, ${sealed.iv}, ${sealed.ciphertext}, ${now})`,
    ].join(";\n"),
  );
  return { key_id: keyId, secret, team, user };
}

export async function listKeys(target: D1Target): Promise<KeyListing[]> {
  const [rows = []] = await queryDb(
    target,
    "SELECT key_id, team_id AS team, user_id AS user, created, revoked FROM api_keys ORDER BY created, key_id",
  );
  return rows as unknown as KeyListing[];
}

/** Marks the key revoked (keeping the first revocation time); null when there is no such key. */
export async function revokeKey(target: D1Target, keyId: string): Promise<KeyListing | null> {
  if (!isValidKeyId(keyId)) throw new Error("invalid key id");
  const now = new Date().toISOString();
  const results = await queryDb(
    target,
    [
      sql`UPDATE api_keys SET revoked = ${now} WHERE key_id = ${keyId} AND revoked IS NULL`,
      sql`SELECT key_id, team_id AS team, user_id AS user, created, revoked FROM api_keys WHERE key_id = ${keyId}`,
    ].join(";\n"),
  );
  const row = results[1]?.[0];
  return row === undefined ? null : (row as unknown as KeyListing);
}

/**
 * True when the key exists, is not revoked, and its stored secret opens under `masterKey` to
 * `secret`, i.e. the worker running with that master key will accept signatures made with it.
 */
export async function isKeyUsable(target: D1Target, masterKey: string, keyId: string, secret: string): Promise<boolean> {
  if (!isValidKeyId(keyId)) return false;
  const [rows = []] = await queryDb(
    target,
    sql`SELECT secret_iv, secret_ciphertext, revoked FROM api_keys WHERE key_id = ${keyId}`,
  );
  const row = rows[0];
  if (row === undefined || row["revoked"] !== null) return false;
  const { secret_iv: iv, secret_ciphertext: ciphertext } = row;
  if (typeof iv !== "string" || typeof ciphertext !== "string") return false;
  const opened = await openSecret(masterKey, keyId, { iv, ciphertext });
  return opened !== null && new TextDecoder().decode(opened) === secret;
}
