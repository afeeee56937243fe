// Bench-only baselines for `npm run bench`: the same workerd gzipping a request body with its
// native CompressionStream (what ingest throughput is compared with), or only reading it. They
// answer only when the var BENCH_ENDPOINTS is "1" (`wrangler dev --var BENCH_ENDPOINTS:1`).
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../errors.ts";

export const BENCH_PATH = "/__bench";

/** True only when the worker runs with the bench var, never in a deployed config. */
export function benchEnabled(env: object): boolean {
  return (env as Record<string, unknown>)["BENCH_ENDPOINTS"] === "1";
}

async function drainedSize(body: ReadableStream<Uint8Array>): Promise<{ inputBytes: number; outputBytes: number }> {
  let inputBytes = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    inputBytes += value.byteLength;
  }
  return { inputBytes, outputBytes: 0 };
}

async function gzippedSize(body: ReadableStream<Uint8Array>): Promise<{ inputBytes: number; outputBytes: number }> {
  let inputBytes = 0;
  let outputBytes = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      inputBytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const reader = body.pipeThrough(counter).pipeThrough(new CompressionStream("gzip")).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    outputBytes += value.byteLength;
  }
  return { inputBytes, outputBytes };
}

/**
 * `POST /__bench/gzip`: pipes the body through CompressionStream('gzip') and counts bytes.
 * `POST /__bench/discard`: only reads the body, the transport's own ceiling.
 */
export function benchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    if (!benchEnabled(c.env)) throw new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);
    await next();
  });
  app.post("/gzip", async (c) => {
    const body = c.req.raw.body;
    if (body === null) throw new ApiError("invalid_request", "POST the bytes to compress.");
    return c.json(await gzippedSize(body));
  });
  app.post("/discard", async (c) => {
    const body = c.req.raw.body;
    if (body === null) throw new ApiError("invalid_request", "POST the bytes to read.");
    return c.json(await drainedSize(body));
  });
  return app;
}
