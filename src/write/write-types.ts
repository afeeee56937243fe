// The types shared by the write protocol's modules (write.ts, commit.ts, the append
// sequencer) and the routes that call it.
import type { IdempotencyHold } from "../model/idempotency.ts";

export type { IdempotencyHold };
import type { DatasetRow, VersionRow } from "../model/dataset.ts";

export type WriteKind = "create" | "update" | "append";

export interface WriteResult {
  dataset: DatasetRow;
  version: VersionRow;
}

/**
 * The response a route sends for a committed write; stored with the commit for replays.
 * `json` is the body already serialised, before the commit, so that sending the answer of a
 * committed write cannot fail: no committed write answers 5xx.
 */
export interface WriteAnswer<Body extends object = object> {
  status: 200 | 201;
  location: string | null;
  body: Body;
  json: string;
}

/** The resumable upload a commit completes (uploads/chunks.ts): settled 'done', with the answer, in the commit's batch. */
export interface UploadSettlement {
  uploadId: string;
  expiresAt: number;
}

/** An Idempotency-Key held by this request (src/write/idempotency.ts). */
