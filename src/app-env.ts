// The Hono environment shared by middleware and routes: bindings plus per-request variables.
import type { IdempotencyHold } from "./model/idempotency.ts";
import type { Caller } from "./model/dataset.ts";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** The verified key's team and user; null for an anonymous request. */
    caller: Caller | null;
    /** The request body behind the size limit and the Content-Digest check; null without one. */
    body: ReadableStream<Uint8Array> | null;
    /** The Idempotency-Key this write holds; the write stores its answer with its commit. */
    idempotency: IdempotencyHold | null;
  };
}
