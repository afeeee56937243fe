// One `npm start` for the end-to-end files of a vitest project: wired as the globalSetup of the
// node and browser projects (vitest.config.ts), it starts the server once and provides its
// address. Starting wrangler dev costs about 10 s, once per project instead of once per file.
// A file run outside that wiring starts its own (startServer), so the tests pass either way.
// Files that need a server of their own (its log, its state directory, the real rate limits)
// call startServer themselves.
import { inject } from "vitest";
import type { TestProject } from "vitest/node";
import { startServer, type DemoKey, type RunningServer } from "./server.ts";

export interface E2eServer {
  url: string;
  demoKey: DemoKey;
}

declare module "vitest" {
  export interface ProvidedContext {
    pubsetServer?: E2eServer;
  }
}

let running: RunningServer | undefined;

/**
 * Every file's requests come from 127.0.0.1, so the shared server's limiters would count all of
 * them together; they get the raised quota the workers project uses. The real limits are tested
 * by test/node/client.rate-limit.e2e.test.ts on a server of its own.
 */
const SHARED_RATE_LIMITS = { signed: { limit: 100_000, period: 60 }, anonymous: { limit: 100_000, period: 60 } } as const;

export async function setup(project: TestProject): Promise<void> {
  running = await startServer({ rateLimits: SHARED_RATE_LIMITS });
  project.provide("pubsetServer", { url: running.url, demoKey: running.demoKey });
}

export async function teardown(): Promise<void> {
  await running?.stop();
}

/** In a test file's beforeAll: the shared server, or one of the file's own; always call stop(). */
export async function e2eServer(): Promise<E2eServer & { stop(): Promise<void> }> {
  const shared = inject("pubsetServer");
  if (shared !== undefined) return { ...shared, stop: async () => undefined };
  const own = await startServer();
  return { url: own.url, demoKey: own.demoKey, stop: () => own.stop() };
}
