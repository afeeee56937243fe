// Enforces the rate limits of src/edge/rate-limit.ts with the Workers Rate Limiting binding and
// puts the draft-11 fields on every response. It runs after the signature check, so a signed
// request counts against its verified key (a forged keyid cannot spend another key's quota).
// A request whose signature fails counts against its address, like an anonymous one
// (`chargeFailedSignature`), so a made-up key id or a garbage Signature does not escape the
// address's budget: past it, 429 instead of 401.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { clientAddressKey, isOverBudget, isolateQuota, noteOverBudget, policyFrom, quotaHeaders, type Policy, type Quota } from "./rate-limit.ts";
import { ApiError } from "../model/errors.ts";

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
