// One `npm start` for all end-to-end files. Wired as a vitest globalSetup of the node project,
// it starts the server once and provides its address; without that wiring, each e2e file
// starts its own (startServer), so the tests pass either way.
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

export async function setup(project: TestProject): Promise<void> {
  running = await startServer();
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
