// What every write route needs before its own logic: the verified caller, the `If-Match`
// precondition (SPEC B3) and clean-up of R2 objects when a write does not commit.
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { Caller } from "../datasets/access.ts";
import { ApiError } from "../errors.ts";
import { deleteObjects } from "../storage/segment-store.ts";

export function requireCaller(c: Context<AppEnv>): Caller {
  const caller = c.get("caller");
  if (!caller) throw new ApiError("signature_required", "Writes must carry an RFC 9421 HTTP message signature.");
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

/** Tracks R2 objects a write created; unless the write commits, they are deleted. */
export class PendingObjects {
  private readonly keys: string[] = [];
  private readonly bucket: R2Bucket;

  constructor(bucket: R2Bucket) {
    this.bucket = bucket;
  }

  add(key: string): void {
    this.keys.push(key);
  }

  committed(): void {
    this.keys.length = 0;
  }

  async discard(): Promise<void> {
    if (this.keys.length > 0) await deleteObjects(this.bucket, this.keys.splice(0));
  }
}
