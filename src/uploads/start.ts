// The one way into a resumable upload: a create, PUT or append sent with `Upload-Complete: ?0`
// (draft-ietf-httpbis-resumable-upload-15 §4.2) creates the upload resource instead of writing.
// The write routes call it first; their route policy says they take uploads.
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { WriteKind } from "../write/write.ts";
import { ifMatchVersion, requireCaller } from "../write/write-context.ts";
import { createUpload, readUploadCreation } from "./creation.ts";
import { sfNonNegativeInteger } from "./length.ts";
import { sfBoolean, stateHeaders, withUploadLimit } from "./upload-headers.ts";

/**
 * A write request that asks for a resumable upload (`Upload-Complete: ?0`): creates the upload
 * resource and answers 201 with its Location. Null for every other write, which goes on as one
 * request (`?1` means the whole content is in this request: the ordinary write).
 */
export async function startUpload(c: Context<AppEnv>, kind: WriteKind, datasetId: string): Promise<Response | null> {
  if (sfBoolean(c.req.header("upload-complete")) !== false) return null;
  const caller = requireCaller(c);
  const creation = await readUploadCreation(c.get("body"));
  // The creation's body describes the upload; only `Upload-Length` says how long its content is.
  const length = sfNonNegativeInteger(c.req.header("upload-length"));
  const ifMatch = kind === "create" ? null : ifMatchVersion(c);
  const upload = await withUploadLimit(c, () => createUpload(c.env, { kind, datasetId, caller, ifMatch, creation, length }));
  c.header("Location", `/v1/uploads/${upload.id}`);
  stateHeaders(c, 0, false, upload.expiresAt, upload.length);
  return c.body(null, 201);
}
