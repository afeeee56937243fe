// Which URLs a webhook may deliver to (docs/changes.md "Webhook safety"): https to a host name
// that is neither an IP literal nor a private, loopback or link-local name, without credentials.
// Checked when the webhook is created and again before every delivery, when the name's addresses
// are checked too (destination.ts). Local development may allow http://127.0.0.1
// (WEBHOOKS_ALLOW_LOCALHOST, which `npm start` sets). Pure.

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type UrlRefusal =
  | "not_a_url"
  | "too_long"
  | "not_https"
  | "credentials"
  | "ip_literal"
  | "private_name"
  | "fragment";

/** `name` is the host name to look up; null for the local allowance, which names an address. */
export type UrlCheck = { ok: true; url: string; name: string | null } | { ok: false; reason: UrlRefusal };

/** One sentence per refusal, for the problem's detail and a delivery's recorded error. */
export const URL_REFUSALS: Record<UrlRefusal, string> = {
  not_a_url: "url must be an absolute URL.",
  too_long: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`,
  not_https: "url must use https.",
  credentials: "url must not carry a user name or password.",
  ip_literal: "url must name its host, not an IP address.",
  private_name: "url must name a public host: not localhost, a single-label name or a private or local-only domain.",
  fragment: "url must not have a #fragment.",
};

/** Names that never reach the public internet (RFC 6761, RFC 6762, RFC 8375, and common private suffixes). */
const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "intranet", "lan", "home", "corp", "private", "home.arpa", "localdomain", "test", "invalid", "example"];

function isIpLiteral(hostname: string): boolean {
  // The WHATWG URL parser writes every IPv4 form (decimal, octal, hex, shortened) as a dotted quad
  // and brackets IPv6.
  return hostname.startsWith("[") || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname);
}

function isPrivateName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, "");
  if (!name.includes(".")) return true;
  return PRIVATE_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

export function checkWebhookUrl(input: string, allowLocalhost: boolean): UrlCheck {
  if (input.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: "too_long" };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "not_a_url" };
  }
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "credentials" };
  if (url.hash !== "" || input.includes("#")) return { ok: false, reason: "fragment" };
  if (allowLocalhost && url.hostname === "127.0.0.1" && (url.protocol === "http:" || url.protocol === "https:")) return { ok: true, url: url.href, name: null };
  if (url.protocol !== "https:") return { ok: false, reason: "not_https" };
  if (isIpLiteral(url.hostname)) return { ok: false, reason: "ip_literal" };
  if (isPrivateName(url.hostname)) return { ok: false, reason: "private_name" };
  return { ok: true, url: url.href, name: url.hostname };
}

/** WEBHOOKS_ALLOW_LOCALHOST as set in wrangler.toml, by `npm start` or by the tests. */
export function localhostAllowed(setting: unknown): boolean {
  return setting === "true";
}
