// API keys looked up once a minute per isolate, not once a request (docs/api.md#signing-requests):
// a signed read then costs no D1 query for its key. The price is the revocation delay docs/api.md
// states: a revoked key keeps working for at most KEY_CACHE_MS in an isolate that looked it up.
// Key ids that name no key are remembered apart, in a bounded map of their own, so a stream of
// made-up ids costs one query each and can never push a real key out of the cache.
import type { StoredKey } from "./store.ts";

export const KEY_CACHE_MS = 60_000;
/** Each map's bound; the oldest entry of that map goes first. */
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  value: T;
  expires: number;
}

const known = new Map<string, Entry<StoredKey>>();
const unknown = new Map<string, Entry<null>>();

function remember<T>(map: Map<string, Entry<T>>, keyId: string, value: T, now: number): void {
  map.delete(keyId);
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(keyId, { value, expires: now + KEY_CACHE_MS });
}

/** True when this isolate holds a fresh lookup of `keyId` (known or unknown): no D1 query is needed. */
export function isKeyCached(keyId: string, now: number = Date.now()): boolean {
  return (known.get(keyId)?.expires ?? 0) > now || (unknown.get(keyId)?.expires ?? 0) > now;
}

/** The key from the cache while fresh, else from `load`, remembered for KEY_CACHE_MS. */
export async function cachedKey(keyId: string, load: (keyId: string) => Promise<StoredKey | null>, now: number = Date.now()): Promise<StoredKey | null> {
  const hit = known.get(keyId);
  if (hit && hit.expires > now) return hit.value;
  const miss = unknown.get(keyId);
  if (miss && miss.expires > now) return null;
  const key = await load(keyId);
  if (key) {
    unknown.delete(keyId);
    remember(known, keyId, key, now);
  } else {
    known.delete(keyId);
    remember(unknown, keyId, null, now);
  }
  return key;
}

/** Forgets every cached key (tests of the revocation path). */
export function clearKeyCache(): void {
  known.clear();
  unknown.clear();
}
