// The draft's headers on every upload answer (draft-ietf-httpbis-resumable-upload-15 §4.1.4,
// §4.3): the offset, completeness and length, and `Upload-Limit`, which also rides on a 413.
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { ApiError } from "../model/errors.ts";

export const PARTIAL_UPLOAD = "application/partial-upload";

/** RFC 9651 Boolean (§3.3.6): `?1` / `?0`; anything else is ignored, as the draft says. */
export function sfBoolean(value: string | undefined): boolean | null {
  const trimmed = value?.trim();
  return trimmed === "?1" ? true : trimmed === "?0" ? false : null;
}

/** The `Upload-Limit` dictionary (draft §4.1.4): what this server accepts. */
export function uploadLimit(env: object, maxAgeSeconds: number): string {
  const limits = limitsFrom(env);
  const sizes = `max-size=${limits.maxResumableBytes}, max-append-size=${limits.maxUploadBytes}, min-append-size=${limits.minUploadChunkBytes}`;
  return `${sizes}, max-age=${Math.max(0, Math.floor(maxAgeSeconds))}`;
}

export function stateHeaders(c: Context<AppEnv>, offset: number, complete: boolean, expiresAt: number, length: number | null): void {
  c.header("Upload-Offset", String(offset));
  c.header("Upload-Complete", complete ? "?1" : "?0");
  if (length !== null) c.header("Upload-Length", String(length));
  c.header("Upload-Limit", uploadLimit(c.env, (expiresAt - Date.now()) / 1000));
  c.header("Cache-Control", "no-store");
}

/** A 413 from the upload's limits carries `Upload-Limit` (draft §4.1.4). */
export async function withUploadLimit<T>(c: Context<AppEnv>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (error instanceof ApiError && error.status === 413) {
      const maxAge = limitsFrom(c.env).uploadExpirySeconds;
      throw new ApiError(error.code, error.detail, error.extensions, { ...error.headers, "Upload-Limit": uploadLimit(c.env, maxAge) });
    }
    throw error;
  }
}
