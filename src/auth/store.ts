// D1 access for teams, memberships, API keys and signature nonces.
import type { SealedSecret } from "./key-secrets.ts";

export interface StoredKey {
  keyId: string;
  teamId: string;
  userId: string;
  sealed: SealedSecret;
  revoked: boolean;
}

interface KeyRow {
  key_id: string;
  team_id: string;
  user_id: string;
  secret_iv: string;
  secret_ciphertext: string;
  revoked: string | null;
}

export async function findKey(db: D1Database, keyId: string): Promise<StoredKey | null> {
  const row = await db
    .prepare("SELECT key_id, team_id, user_id, secret_iv, secret_ciphertext, revoked FROM api_keys WHERE key_id = ?")
    .bind(keyId)
    .first<KeyRow>();
  if (!row) return null;
  return {
    keyId: row.key_id,
    teamId: row.team_id,
    userId: row.user_id,
    sealed: { iv: row.secret_iv, ciphertext: row.secret_ciphertext },
    revoked: row.revoked !== null,
  };
}

/**
 * When a nonce may be forgotten: one second after the last second its signature verifies
 * (`created` + window, docs/api.md#signing-requests), so no setting can open a replay gap.
 */
export function nonceExpiry(createdSeconds: number, windowSeconds: number): number {
  return createdSeconds + windowSeconds + 1;
}

/** Records a nonce until `expiresSeconds`; false when the key already used it and it has not expired (docs/api.md#signing-requests). */
export async function recordNonce(db: D1Database, keyId: string, nonce: string, nowSeconds: number, expiresSeconds: number): Promise<boolean> {
  const result = await db
    .prepare(
      `INSERT INTO nonces (key_id, nonce, expires) VALUES (?1, ?2, ?3)
       ON CONFLICT (key_id, nonce) DO UPDATE SET expires = excluded.expires WHERE nonces.expires <= ?4`,
    )
    .bind(keyId, nonce, expiresSeconds, nowSeconds)
    .run();
  return result.meta.changes > 0;
}

export async function isTeamMember(db: D1Database, teamId: string, userId: string): Promise<boolean> {
  const row = await db.prepare("SELECT 1 AS ok FROM memberships WHERE team_id = ? AND user_id = ?").bind(teamId, userId).first();
  return row !== null;
}

export async function purgeExpiredNonces(db: D1Database, nowSeconds: number): Promise<number> {
  const result = await db.prepare("DELETE FROM nonces WHERE expires <= ?").bind(nowSeconds).run();
  return result.meta.changes;
}

/** The rows `npm run keys -- create` writes; used by tests to provision keys in workerd. */
export async function insertKey(
  db: D1Database,
  key: { keyId: string; teamId: string; userId: string; sealed: SealedSecret; created: string },
): Promise<void> {
  await db.batch([
    db.prepare("INSERT OR IGNORE INTO teams (id, created) VALUES (?, ?)").bind(key.teamId, key.created),
    db.prepare("INSERT OR IGNORE INTO users (id, created) VALUES (?, ?)").bind(key.userId, key.created),
    db.prepare("INSERT OR IGNORE INTO memberships (team_id, user_id) VALUES (?, ?)").bind(key.teamId, key.userId),
    db
      .prepare("INSERT INTO api_keys (key_id, team_id, user_id, secret_iv, secret_ciphertext, created) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(key.keyId, key.teamId, key.userId, key.sealed.iv, key.sealed.ciphertext, key.created),
  ]);
}

export async function revokeKey(db: D1Database, keyId: string, when: string): Promise<void> {
  await db.prepare("UPDATE api_keys SET revoked = ? WHERE key_id = ? AND revoked IS NULL").bind(when, keyId).run();
}
