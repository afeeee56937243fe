// The isolate's key cache (src/auth/key-cache.ts, issue 27): made-up key ids are remembered in a
// bounded map of their own, so a flood of them cannot push a real key out and cost it a query.
import { afterEach, describe, expect, it } from "vitest";
import { cachedKey, clearKeyCache, isKeyCached, KEY_CACHE_MS } from "../src/auth/key-cache.ts";
import type { StoredKey } from "../src/auth/store.ts";

const REAL: StoredKey = { keyId: "pk_real", teamId: "t", userId: "u", sealed: { iv: "", ciphertext: "" }, revoked: false };

afterEach(() => clearKeyCache());

describe("key cache", () => {
  it("keeps a known key through 20,000 unknown ids, and asks for each unknown id once", async () => {
    const loads: string[] = [];
    const load = async (keyId: string) => {
      loads.push(keyId);
      return keyId === REAL.keyId ? REAL : null;
    };
    const now = 1_000_000;
    expect(await cachedKey(REAL.keyId, load, now)).toBe(REAL);
    for (let i = 0; i < 20_000; i++) expect(await cachedKey(`pk_fake_${i}`, load, now)).toBeNull();
    expect(await cachedKey("pk_fake_19999", load, now)).toBeNull();
    expect(loads.length).toBe(20_001);
    expect(await cachedKey(REAL.keyId, load, now + 1)).toBe(REAL);
    expect(loads.length).toBe(20_001);
    expect(isKeyCached(REAL.keyId, now + 1)).toBe(true);
    expect(isKeyCached("pk_fake_0", now + 1)).toBe(false);
    expect(isKeyCached(REAL.keyId, now + KEY_CACHE_MS)).toBe(false);
  });
});
