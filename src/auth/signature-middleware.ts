// Authenticates requests with RFC 9421 HTTP Message Signatures (docs/api.md#signing-requests). Any request may be
// signed; a signature that fails is always a 401 (a 429 once its address is over budget), never
// served as anonymous.
// A body is handed on through the RFC 9530 digest check, which fails the stream at its end.
import { createMiddleware } from "hono/factory";
import { digestVerifyingStream } from "../wire/content-digest.ts";
import { cachedKey, isKeyCached } from "./key-cache.ts";
import { openSecret } from "./key-secrets.ts";
import { verifyRequestSignature } from "../wire/verify.ts";
import { limitsFrom } from "../config.ts";
import { ApiError } from "../model/errors.ts";
import { byteLimitStream } from "../http/byte-limit.ts";
import { largeChunks } from "../http/large-chunks.ts";
import { findKey, nonceExpiry, recordNonce, type StoredKey } from "./store.ts";
import type { AppEnv } from "../app-env.ts";
import type { Context } from "hono";
import { chargeFailedSignature, refuseIfAddressOverBudget } from "../edge/rate-limit.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return length.trim() !== "0";
  return request.body !== null;
}

export const signatureMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const request = c.req.raw;
  const limits = limitsFrom(c.env);
  const isWrite = !SAFE_METHODS.has(request.method);
  const bodyPresent = hasBody(request);
  const declaredLength = Number(request.headers.get("content-length") ?? "0");
  if (declaredLength > limits.maxUploadBytes) {
    throw new ApiError("payload_too_large", `Request bodies are limited to ${limits.maxUploadBytes} bytes.`, { limit: limits.maxUploadBytes });
  }
  c.set("caller", null);
  c.set("body", null);
  const signed = request.headers.has("signature") || request.headers.has("signature-input");
  // Unsigned requests go on as anonymous; write routes refuse them (requireCaller), so an
  // unsupported method still gets its 405.
  if (!signed) return next();

  let verified: { key: StoredKey; result: VerifiedSignature };
  try {
    verified = await verifiedCaller(c, isWrite, bodyPresent);
  } catch (error: unknown) {
    // A failed signature counts against the address, as an unsigned request would (docs/edge-and-caching.md#rate-limits).
    if (error instanceof ApiError && error.status === 401) await chargeFailedSignature(c);
    throw error;
  }
  const { key, result } = verified;
  c.set("caller", { keyId: key.keyId, teamId: key.teamId, userId: key.userId });

  if (bodyPresent && request.body) {
    if (!result.digest) throw new ApiError("digest_mismatch", "A request with a body needs a Content-Digest.");
    const tooLarge = () =>
      new ApiError("payload_too_large", `Request bodies are limited to ${limits.maxUploadBytes} bytes.`, { limit: limits.maxUploadBytes });
    c.set("body", largeChunks(request.body).pipeThrough(byteLimitStream(limits.maxUploadBytes, tooLarge)).pipeThrough(digestVerifyingStream(result.digest)));
  }
  return next();
});

type VerifiedSignature = Extract<Awaited<ReturnType<typeof verifyRequestSignature>>, { ok: true }>;

/** Verifies the signature and records a write's nonce; throws the 401 that fits a failure. */
async function verifiedCaller(c: Context<AppEnv>, isWrite: boolean, bodyPresent: boolean): Promise<{ key: StoredKey; result: VerifiedSignature }> {
  const request = c.req.raw;
  const limits = limitsFrom(c.env);
  let key: StoredKey | null = null;
  const nowSeconds = Math.floor(Date.now() / 1000);
  const result = await verifyRequestSignature(
    { method: request.method, url: request.url, headers: request.headers },
    {
      nowSeconds,
      windowSeconds: limits.signatureWindowSeconds,
      requireNonce: isWrite,
      hasBody: bodyPresent,
      lookupKey: async (keyId) => {
        // A key id this isolate has not looked up costs a D1 query: not for an address already over budget.
        if (!isKeyCached(keyId)) refuseIfAddressOverBudget(c);
        key = await cachedKey(keyId, (id) => findKey(c.env.DB, id));
        if (!key || key.revoked) return null;
        return openSecret(c.env.KEY_ENCRYPTION_KEY, key.keyId, key.sealed);
      },
    },
  );
  if (!result.ok) throw new ApiError(result.code, result.detail, result.component === undefined ? {} : { component: result.component });
  const found = key as StoredKey | null;
  if (!found) throw new ApiError("unknown_key", "Unknown key.");
  // A nonce is single use on writes; on GET and HEAD it is optional and not stored, so a
  // signed read writes nothing.
  if (isWrite && result.nonce !== null) {
    const fresh = await recordNonce(c.env.DB, found.keyId, result.nonce, nowSeconds, nonceExpiry(result.created, limits.signatureWindowSeconds));
    if (!fresh) throw new ApiError("nonce_reused", "This key already used this nonce.");
  }
  return { key: found, result };
}
