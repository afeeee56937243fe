// Rate limits (docs/edge-and-caching.md): per key for signed requests, per client address
// otherwise, enforced by the Workers Rate Limiting binding and reported in the fields of
// draft-ietf-httpapi-ratelimit-headers-11 (`RateLimit-Policy`, `RateLimit`, §4-§5). The binding
// answers only "allowed or not" and counts per Cloudflare location, so the reported remaining
// quota is this isolate's own fixed-window estimate, an approximation by design.
// The middleware runs after the signature check, so a signed request counts against its verified
// key (a forged keyid cannot spend another key's quota). A request whose signature fails counts
// against its address, like an anonymous one (`chargeFailedSignature`), so a made-up key id or a
// garbage Signature does not escape the address's budget: past it, 429 instead of 401.
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../model/errors.ts";

export type PolicyName = "signed" | "anonymous";

export interface Policy {
  name: PolicyName;
  /** Requests allowed per window (draft-11 `q`). */
  quota: number;
  /** Window length in seconds (draft-11 `w`); the binding allows 10 or 60. */
  window: number;
}

const DEFAULTS: Record<PolicyName, { quota: number; window: number }> = {
  signed: { quota: 600, window: 60 },
  anonymous: { quota: 300, window: 60 },
};

/** `RATE_LIMIT_SIGNED` / `RATE_LIMIT_ANONYMOUS` in wrangler.toml [vars]: "<quota>/<window s>". */
export function policyFrom(env: object, name: PolicyName): Policy {
  const raw = (env as Record<string, unknown>)[name === "signed" ? "RATE_LIMIT_SIGNED" : "RATE_LIMIT_ANONYMOUS"];
  const match = typeof raw === "string" ? /^\s*(\d{1,9})\s*\/\s*(10|60)\s*$/.exec(raw) : null;
  if (!match?.[1] || !match[2]) return { name, ...DEFAULTS[name] };
  return { name, quota: Number(match[1]), window: Number(match[2]) };
}

/**
 * The anonymous partition: the client's address, an IPv6 one cut to its /64 (one subscriber
 * usually holds a whole /64, so per-address keys would be free to rotate).
 */
export function clientAddressKey(request: Request): string {
  const address = request.headers.get("CF-Connecting-IP")?.trim() ?? "";
  if (address === "") return "addr:unknown";
  // IPv4, or IPv4 mapped into IPv6 (`::ffff:192.0.2.1`): the IPv4 address itself.
  if (address.includes(".")) return `addr:${address.slice(address.lastIndexOf(":") + 1)}`;
  const groups = expandIpv6(address);
  return groups ? `addr6:${groups.slice(0, 4).join(":")}::/64` : `addr:${address}`;
}

function expandIpv6(address: string): string[] | null {
  const [head = "", tail, extra] = address.toLowerCase().split("::");
  if (extra !== undefined) return null;
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  return [...left, ...Array<string>(Math.max(0, missing)).fill("0"), ...right].map((g) => g.replace(/^0+(?=.)/, ""));
}

interface Window {
  start: number;
  used: number;
}

const MAX_TRACKED = 10_000;
const windows = new Map<string, Window>();

export interface Quota {
  policy: Policy;
  remaining: number;
  /** Seconds until the current window ends (draft-11 `t`), at least 1. */
  reset: number;
}

/** Counts one request of `key` in this isolate's window (`consume`), or only reads it. */
export function isolateQuota(policy: Policy, key: string, consume: boolean, nowMs: number = Date.now()): Quota {
  const now = Math.floor(nowMs / 1000);
  const start = now - (now % policy.window);
  const id = `${policy.name}|${key}`;
  let window = windows.get(id);
  if (!window || window.start !== start) {
    window = { start, used: 0 };
    if (windows.size >= MAX_TRACKED) windows.clear();
    windows.set(id, window);
  }
  if (consume) window.used++;
  return { policy, remaining: Math.max(0, policy.quota - window.used), reset: Math.max(1, start + policy.window - now) };
}

/** draft-11 §4: `RateLimit-Policy: "<name>";q=<quota>;w=<window>`. */
export function policyField(policy: Policy): string {
  return `"${policy.name}";q=${policy.quota};w=${policy.window}`;
}

/** draft-11 §5: `RateLimit: "<name>";r=<remaining>;t=<seconds>`. */
export function quotaField(quota: Quota): string {
  return `"${quota.policy.name}";r=${quota.remaining};t=${quota.reset}`;
}

export function quotaHeaders(quota: Quota): Record<string, string> {
  return { "RateLimit-Policy": policyField(quota.policy), RateLimit: quotaField(quota) };
}

const overBudget = new Map<string, number>();

/** Remembers, in this isolate, that `key` was refused until the end of its window. */
export function noteOverBudget(key: string, quota: Quota, nowMs: number = Date.now()): void {
  if (overBudget.size >= MAX_TRACKED) overBudget.clear();
  overBudget.set(key, nowMs + quota.reset * 1000);
}

/** Whether this isolate saw `key` refused in a window that has not ended. */
export function isOverBudget(key: string, nowMs: number = Date.now()): boolean {
  const until = overBudget.get(key);
  if (until === undefined) return false;
  if (until > nowMs) return true;
  overBudget.delete(key);
  return false;
}

function setQuotaHeaders(c: Context<AppEnv>, quota: Quota): void {
  for (const [name, value] of Object.entries(quotaHeaders(quota))) c.res.headers.set(name, value);
}

/** Outermost: any response that did not pass the limiter reports the address quota, uncounted. */
export const rateLimitFieldsMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.headers.has("RateLimit")) return;
  try {
    setQuotaHeaders(c, isolateQuota(policyFrom(c.env, "anonymous"), clientAddressKey(c.req.raw), false));
  } catch {
    // A response with immutable headers (a 304 or a passthrough); quota fields are advisory.
  }
});

function rateLimited(policy: Policy, quota: Quota): ApiError {
  const exhausted = { ...quota, remaining: 0 };
  return new ApiError(
    "rate_limited",
    `Over the ${policy.name} limit of ${policy.quota} requests per ${policy.window} s; retry after ${exhausted.reset} s.`,
    { policy: policy.name },
    { ...quotaHeaders(exhausted), "Retry-After": String(exhausted.reset) },
  );
}

export const rateLimitMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.get("caller") ?? null;
  const policy = policyFrom(c.env, caller ? "signed" : "anonymous");
  const key = caller ? `key:${caller.keyId}` : clientAddressKey(c.req.raw);
  const binding = caller ? c.env.SIGNED_RATE_LIMIT : c.env.ANONYMOUS_RATE_LIMIT;
  const { success } = await binding.limit({ key });
  const quota = isolateQuota(policy, key, true);
  if (!success) throw rateLimited(policy, quota);
  await next();
  setQuotaHeaders(c, quota);
});

/** Counts a request whose signature failed against its address; throws 429 once that is over budget. */
export async function chargeFailedSignature(c: Context<AppEnv>): Promise<void> {
  const policy = policyFrom(c.env, "anonymous");
  const key = clientAddressKey(c.req.raw);
  const { success } = await c.env.ANONYMOUS_RATE_LIMIT.limit({ key });
  const quota = isolateQuota(policy, key, true);
  if (success) return;
  noteOverBudget(key, quota);
  throw rateLimited(policy, quota);
}

/**
 * Before a key id this isolate has never looked up costs a D1 query: an address this isolate
 * saw refused in the current window is refused again at once.
 */
export function refuseIfAddressOverBudget(c: Context<AppEnv>): void {
  const key = clientAddressKey(c.req.raw);
  if (!isOverBudget(key)) return;
  const policy = policyFrom(c.env, "anonymous");
  throw rateLimited(policy, isolateQuota(policy, key, false));
}
