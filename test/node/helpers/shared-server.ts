// One `npm start` for the end-to-end files of the node and browser projects: wired as the
// globalSetup of both (vitest.config.ts), it starts the server once for the run and provides its
// address. Starting wrangler dev costs about 10 s, once per run instead of once per file.
// A file run outside that wiring starts its own (startServer), so the tests pass either way.
// Files that need a server of their own (its log, its state directory, the real rate limits)
// call startServer themselves.
import { inject } from "vitest";
import type { TestProject } from "vitest/node";
import { runScript } from "./run-script.ts";
import { startServer, type DemoKey, type RunningServer } from "./server.ts";

export interface E2eServer {
  url: string;
  demoKey: DemoKey;
}

export interface SharedServer extends E2eServer {
  /**
   * A key of a team no other file signs with, for the file whose assertions cover every event
   * of its team (test/node/cli.changes.test.ts): files run side by side on the shared server,
   * and the demo team's feed and webhooks carry the other files' datasets too.
   */
  soloKey: DemoKey;
}

declare module "vitest" {
  export interface ProvidedContext {
    pubsetServer?: SharedServer;
  }
}

interface Shared {
  server: Promise<{ running: RunningServer; provided: SharedServer }>;
  users: number;
}

// vitest runs each project's globalSetup in its own module instance of this file, in one
// process: the server lives on globalThis so the second project reuses what the first started.
const SHARED = Symbol.for("pubset.sharedServer");
const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };

/**
 * Every file's requests come from 127.0.0.1, so the shared server's limiters would count all of
 * them together; they get the raised quota the workers project uses. The real limits are tested
 * by test/node/client.rate-limit.e2e.test.ts on a server of its own.
 */
const SHARED_RATE_LIMITS = { signed: { limit: 100_000, period: 60 }, anonymous: { limit: 100_000, period: 60 } } as const;

/** `npm run keys -- create` against the server's state, before any test reads it. */
async function createKey(server: RunningServer, team: string, user: string): Promise<DemoKey> {
  const run = await runScript("keys.ts", ["create", "--team", team, "--user", user, "--persist-to", server.stateDir]);
  if (run.code !== 0) throw new Error(`keys create exited ${run.code}\n${run.stderr}`);
  return JSON.parse(run.stdout) as DemoKey;
}

async function start(): Promise<{ running: RunningServer; provided: SharedServer }> {
  const running = await startServer({ rateLimits: SHARED_RATE_LIMITS });
  try {
    return { running, provided: { url: running.url, demoKey: running.demoKey, soloKey: await createKey(running, "solo", "solo") } };
  } catch (error: unknown) {
    await running.stop();
    throw error;
  }
}

export async function setup(project: TestProject): Promise<void> {
  const shared = (holder[SHARED] ??= { server: start(), users: 0 });
  shared.users++;
  project.provide("pubsetServer", (await shared.server).provided);
}

export async function teardown(): Promise<void> {
  const shared = holder[SHARED];
  if (shared === undefined || --shared.users > 0) return;
  delete holder[SHARED];
  await (await shared.server.catch(() => undefined))?.running.stop();
}

/** In a test file's beforeAll: the shared server, or one of the file's own; always call stop(). */
export async function e2eServer(): Promise<SharedServer & { stop(): Promise<void> }> {
  const shared = inject("pubsetServer");
  if (shared !== undefined) return { ...shared, stop: async () => undefined };
  const own = await startServer();
  // A server of the file's own: no other file signs with its demo key.
  return { url: own.url, demoKey: own.demoKey, soloKey: own.demoKey, stop: () => own.stop() };
}
