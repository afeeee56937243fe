// What every write route hands the write protocol (src/write/write.ts): the verified caller,
// the `If-Match` precondition (docs/api.md#who-sees-what), the body, the Idempotency-Key this request holds, and
// a way to run work after the response.
import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import type { AppEnv } from "../app-env.ts";
import type { WriteAnswer, WriteKind, WriteRequest, WriteResult } from "./write.ts";
import { ApiError, SIGNATURE_REQUIRED_DETAIL } from "../model/errors.ts";
import type { Caller } from "../model/dataset.ts";

export function requireCaller(c: Context<AppEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new ApiError("signature_required", SIGNATURE_REQUIRED_DETAIL);
  return caller;
}

/** `If-Match: "<version>"` → that version id; absent or `*` → null. */
export function ifMatchVersion(c: Context<AppEnv>): string | null {
  const raw = c.req.header("if-match")?.trim();
  if (raw === undefined || raw === "" || raw === "*") return null;
  const match = /^(?:W\/)?"([^"]+)"$/.exec(raw) ?? /^([0-9a-f-]{36})$/.exec(raw);
  if (!match?.[1]) throw new ApiError("invalid_request", 'If-Match must be a quoted version id: If-Match: "<version>".');
  return match[1];
}

function deferrer(c: Context<AppEnv>): (work: Promise<void>) => void {
  return (work) => {
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // No execution context (the app run outside a worker): the work runs on unawaited.
      void work;
    }
  };
}

export function writeRequest<Body extends object>(
  c: Context<AppEnv>,
  kind: WriteKind,
  datasetId: string,
  answer: (result: WriteResult) => WriteAnswer<Body>,
): WriteRequest<Body> {
  return {
    kind,
    datasetId,
    caller: requireCaller(c),
    ifMatch: kind === "create" ? null : ifMatchVersion(c),
    contentType: c.req.header("content-type") ?? null,
    body: c.get("body"),
    answer,
    idempotency: c.get("idempotency") ?? null,
    defer: deferrer(c),
  };
}

/**
 * A committed write's answer as stored for Idempotency-Key replays: its body serialised before
 * the commit, so nothing left to do here can fail.
 */
export function sendAnswer<Body extends object, Status extends WriteAnswer["status"]>(
  c: Context<AppEnv>,
  answer: WriteAnswer<Body>,
  status: Status,
): Response & TypedResponse<JSONParsed<Body>, Status, "json"> {
  if (answer.location !== null) c.header("Location", answer.location);
  c.header("Cache-Control", "private, no-store");
  c.header("Content-Type", "application/json");
  // The typed route's schema checks Body; the bytes are the same value serialised before the commit.
  const response: Response = c.body(answer.json, status);
  return response as Response & TypedResponse<JSONParsed<Body>, Status, "json">;
}
