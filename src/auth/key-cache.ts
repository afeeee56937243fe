// API keys looked up once a minute per isolate, not once a request (SPEC B4, issue 10): a signed
// read then costs no D1 query for its key. The price is the revocation delay the README states:
// a revoked key keeps working for at most KEY_CACHE_MS in an isolate that looked it up before.
import type { StoredKey } from "../storage/keys-db.ts";

export const KEY_CACHE_MS = 60_000;
/** Unknown key ids are cached too (a flood of made-up ids costs one query each per minute); bounded. */
const MAX_ENTRIES = 10_000;

interface Entry {
  key: StoredKey | null;
  expires: number;
}

const entries = new Map<string, Entry>();

/** The key from the cache while fresh, else from `load`, remembered for KEY_CACHE_MS. */
export async function cachedKey(keyId: string, load: (keyId: string) => Promise<StoredKey | null>, now: number = Date.now()): Promise<StoredKey | null> {
  const entry = entries.get(keyId);
  if (entry && entry.expires > now) return entry.key;
  const key = await load(keyId);
  entries.delete(keyId);
  if (entries.size >= MAX_ENTRIES) {
    const oldest = entries.keys().next();
    if (!oldest.done) entries.delete(oldest.value);
  }
  entries.set(keyId, { key, expires: now + KEY_CACHE_MS });
  return key;
}

/** Forgets every cached key (tests of the revocation path). */
export function clearKeyCache(): void {
  entries.clear();
}
