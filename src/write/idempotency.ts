// Idempotency-Key on signed writes (docs/api.md#idempotent-writes; draft-ietf-httpapi-idempotency-key-header):
// the first 2xx answer is stored and replayed for the same request, per API key; a second
// request while the first runs gets 409, so a retried write never makes two versions.
import type { Context } from "hono";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { problemFromStreamError } from "./stream-errors.ts";
import { ApiError } from "../model/errors.ts";
import { parseIdempotencyKey, requestFingerprint } from "./idempotency-key.ts";
import { completeIdempotencyKey, findIdempotencyRecord, releaseIdempotencyKey, reserveIdempotencyKey, type IdempotencyScope, type StoredResponse } from "./store.ts";

const METHODS = new Set(["POST", "PUT", "DELETE"]);
const REPLAYED_HEADERS = ["Content-Type", "Location"];
const CLAIM_ATTEMPTS = 3;

type Claim = { kind: "reserved"; token: string } | { kind: "replay"; response: StoredResponse };

const nowSeconds = () => Math.floor(Date.now() / 1000);

export const idempotencyMiddleware = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("idempotency-key");
  const caller = c.get("caller");
  // Unsigned writes are refused by the routes; the key only matters once a caller is known.
  if (header === undefined || caller === null || !METHODS.has(c.req.method)) return next();
  const idempotencyKey = parseIdempotencyKey(header);
  if (idempotencyKey === null) throw new ApiError("invalid_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
  const scope: IdempotencyScope = { keyId: caller.keyId, idempotencyKey };
  const fingerprint = await requestFingerprint({
    method: c.req.method,
    url: c.req.url,
    contentDigest: c.req.header("content-digest") ?? null,
    ifMatch: c.req.header("if-match") ?? null,
  });
  const claim = await claimKey(c, scope, fingerprint);
  if (claim.kind === "replay") {
    await drainBody(c.get("body"));
    return replay(c, claim.response);
  }
  const work = runReserved(c, next, scope, claim.token);
  keepAlive(c, work);
  await work;
});

/** Reserves the key, or finds why not: a stored answer, a different request, or one in flight. */
async function claimKey(c: Context<AppEnv>, scope: IdempotencyScope, fingerprint: string): Promise<Claim> {
  const db = c.env.DB;
  const { idempotencyLeaseSeconds } = limitsFrom(c.env);
  const token = crypto.randomUUID();
  // A miss after a failed reservation means the holder just released it: try again.
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const now = nowSeconds();
    if (await reserveIdempotencyKey(db, scope, { token, fingerprint, nowSeconds: now, leaseSeconds: idempotencyLeaseSeconds })) {
      return { kind: "reserved", token };
    }
    const record = await findIdempotencyRecord(db, scope, now);
    if (record === null) continue;
    if (record.fingerprint !== fingerprint) {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used for a different request.");
    }
    if (record.state === "done") return { kind: "replay", response: record.response };
    break;
  }
  throw new ApiError("conflict", "A request with this Idempotency-Key is still in progress; retry.", {}, { "Retry-After": "1" });
}

/** Runs the write; stores a 2xx answer, and frees the key after any other outcome. */
async function runReserved(c: Context<AppEnv>, next: () => Promise<void>, scope: IdempotencyScope, token: string): Promise<void> {
  const db = c.env.DB;
  c.set("idempotency", { scope, token, expiresSeconds: nowSeconds() + limitsFrom(c.env).idempotencyTtlSeconds });
  try {
    await next();
  } catch (error: unknown) {
    await release(db, scope, token);
    throw error;
  }
  const response = c.res;
  if (response.status < 200 || response.status > 299) {
    await release(db, scope, token);
    return;
  }
  // A write through src/write/write.ts stored this answer in the batch that committed it;
  // storing it again here is the same row written twice, and covers any other 2xx.
  try {
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const stored = { status: response.status, headers, body: await response.clone().text() };
    await completeIdempotencyKey(db, scope, token, stored, nowSeconds() + limitsFrom(c.env).idempotencyTtlSeconds);
  } catch (error: unknown) {
    // The write happened: the key stays held until its lease ends rather than allow a duplicate.
    console.error("idempotency: storing the response failed", error);
  }
}

async function release(db: D1Database, scope: IdempotencyScope, token: string): Promise<void> {
  try {
    await releaseIdempotencyKey(db, scope, token);
  } catch (error: unknown) {
    console.error("idempotency: releasing the key failed; it frees itself when its lease ends", error);
  }
}

/** A client that disconnects cancels the request; this lets the write still settle its key. */
function keepAlive(c: Context<AppEnv>, work: Promise<void>): void {
  try {
    c.executionCtx.waitUntil(work.catch(() => undefined));
  } catch {
    // No execution context (the app run outside a worker): nothing can cancel the request.
  }
}

/** A replay still reads the body, so its size limit and Content-Digest are checked as usual. */
async function drainBody(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  try {
    while (!(await reader.read()).done);
  } catch (error: unknown) {
    throw problemFromStreamError(error);
  }
}

function replay(c: Context<AppEnv>, stored: StoredResponse): Response {
  const headers = { ...stored.headers, "Cache-Control": "private, no-store", "Idempotent-Replayed": "true" };
  // Only 2xx statuses are ever stored. 201/200 carry JSON; a 204 (DELETE) has no body at all.
  if (stored.body === "") return c.body(null, stored.status as StatusCode, headers);
  return c.body(stored.body, stored.status as ContentfulStatusCode, headers);
}
