// Enforces the rate limits of src/edge/rate-limit.ts with the Workers Rate Limiting binding and
// puts the draft-11 fields on every response. It runs after the signature check, so a signed
// request counts against its verified key (a forged keyid cannot spend another key's quota) and
// a request whose signature fails (401) counts against nothing, as draft-11 §7 advises; that
// response still reports the caller's address quota.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { clientAddressKey, isolateQuota, policyFrom, quotaHeaders, type Quota } from "../edge/rate-limit.ts";
import { ApiError } from "../errors.ts";

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

export const rateLimitMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.get("caller") ?? null;
  const policy = policyFrom(c.env, caller ? "signed" : "anonymous");
  const key = caller ? `key:${caller.keyId}` : clientAddressKey(c.req.raw);
  const binding = caller ? c.env.SIGNED_RATE_LIMIT : c.env.ANONYMOUS_RATE_LIMIT;
  const { success } = await binding.limit({ key });
  const quota = isolateQuota(policy, key, true);
  if (!success) {
    const exhausted = { ...quota, remaining: 0 };
    throw new ApiError(
      "rate_limited",
      `Over the ${policy.name} limit of ${policy.quota} requests per ${policy.window} s; retry after ${exhausted.reset} s.`,
      { policy: policy.name },
      { ...quotaHeaders(exhausted), "Retry-After": String(exhausted.reset) },
    );
  }
  await next();
  setQuotaHeaders(c, quota);
});
