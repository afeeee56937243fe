// Provisions API keys in the test D1 the same way `npm run keys -- create` does.
import { env } from "cloudflare:workers";
import { newKeyMaterial, sealSecret } from "../../src/auth/key-secrets.ts";
import { insertKey } from "../../src/auth/store.ts";

export interface TestKey {
  keyId: string;
  secret: string;
  team: string;
  user: string;
}

export async function createKey(team: string, user: string): Promise<TestKey> {
  const { keyId, secret } = newKeyMaterial();
  const sealed = await sealSecret(env.KEY_ENCRYPTION_KEY, keyId, secret);
  await insertKey(env.DB, { keyId, teamId: team, userId: user, sealed, created: new Date().toISOString() });
  return { keyId, secret, team, user };
}
