// Looking up a webhook host's addresses before a delivery (docs/changes.md "Webhook safety"). A
// Worker has no resolver of its own, so it asks a DNS-over-HTTPS server (RFC 8484), DOH_URL in
// wrangler.toml, for the name's A and AAAA records at once.
import { decodeAnswer, encodeQuery, rcodeName, TYPE_A, TYPE_AAAA } from "./dns-message.ts";
import type { IpAddress } from "./ip-address.ts";

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
/** A lookup is one round trip to a nearby resolver; one this slow is a failed attempt. */
export const DOH_TIMEOUT_MS = 5_000;
const DNS_MESSAGE = "application/dns-message";

/** Every address the name has now, or why that is not known. */
export type Resolution = { ok: true; addresses: IpAddress[] } | { ok: false; error: string };

export interface Resolver {
  resolve(name: string): Promise<Resolution>;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** One RFC 8484 §4.1 GET: the query in `dns`, base64url without padding. */
async function ask(endpoint: string, name: string, type: number, fetcher: typeof fetch): Promise<Resolution> {
  const url = new URL(endpoint);
  url.searchParams.set("dns", base64url(encodeQuery(name, type)));
  const label = type === TYPE_A ? "A" : "AAAA";
  const timeout = AbortSignal.timeout(DOH_TIMEOUT_MS);
  try {
    const response = await fetcher(url, { headers: { Accept: DNS_MESSAGE }, redirect: "manual", signal: timeout });
    if (response.status !== 200) {
      await response.body?.cancel();
      return { ok: false, error: `the DNS-over-HTTPS server answered HTTP ${response.status} for ${label}` };
    }
    if (response.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase() !== DNS_MESSAGE) {
      await response.body?.cancel();
      return { ok: false, error: `the DNS-over-HTTPS server answered ${label} with no ${DNS_MESSAGE}` };
    }
    const answer = decodeAnswer(new Uint8Array(await response.arrayBuffer()), name, type);
    if (!answer.ok) return { ok: false, error: `${label}: ${answer.error}` };
    if (answer.rcode !== 0) return { ok: false, error: `${label}: DNS answered ${rcodeName(answer.rcode)}` };
    return { ok: true, addresses: answer.addresses };
  } catch (error: unknown) {
    if (timeout.aborted) return { ok: false, error: `${label}: no DNS-over-HTTPS answer within ${DOH_TIMEOUT_MS / 1000} s` };
    return { ok: false, error: `${label}: no DNS-over-HTTPS answer: ${String(error)}`.slice(0, 200) };
  }
}

/**
 * A resolver asking `endpoint`. A name is known only when both lookups succeed: one that failed
 * might have held the address that would be refused.
 */
export function dohResolver(endpoint: string, fetcher: typeof fetch = fetch): Resolver {
  return {
    async resolve(name) {
      const [a, aaaa] = await Promise.all([ask(endpoint, name, TYPE_A, fetcher), ask(endpoint, name, TYPE_AAAA, fetcher)]);
      if (!a.ok) return a;
      if (!aaaa.ok) return aaaa;
      const addresses = [...a.addresses, ...aaaa.addresses];
      return addresses.length > 0 ? { ok: true, addresses } : { ok: false, error: "DNS has no A or AAAA record for it" };
    },
  };
}

/**
 * The same resolver, asking once per name for at most `maxAgeMs`: one batch's deliveries to one
 * host share a lookup, and a batch that runs long (a slow endpoint: up to 10 s an attempt)
 * asks again rather than trusting an answer older than that.
 */
export function oncePerName(resolver: Resolver, maxAgeMs = 10_000, now: () => number = Date.now): Resolver {
  const asked = new Map<string, { at: number; answer: Promise<Resolution> }>();
  return {
    resolve(name) {
      const key = name.toLowerCase();
      const known = asked.get(key);
      if (known && now() - known.at < maxAgeMs) return known.answer;
      const answer = resolver.resolve(name);
      asked.set(key, { at: now(), answer });
      return answer;
    },
  };
}
