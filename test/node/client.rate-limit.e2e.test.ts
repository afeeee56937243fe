// The client and the CLI retry 429 rate_limited (honouring Retry-After) against the real worker:
// `npm start` with 3 requests per 10 s, enforced by the local Rate Limiting binding.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PubsetClient } from "../../src/client/index.ts";
import { runInProcess } from "./cli.helpers.ts";
import { startServer, type RunningServer } from "./helpers/server.ts";

const LIMITS = { signed: { limit: 3, period: 10 }, anonymous: { limit: 3, period: 10 } } as const;
const dir = mkdtempSync(join(tmpdir(), "pubset-ratelimit-"));
let server: RunningServer | undefined;

beforeAll(async () => {
  server = await startServer({ rateLimits: LIMITS, readyTimeoutMs: 120_000 });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function exhaust(url: string, headers: Record<string, string> = {}): Promise<Response> {
  for (let i = 0; i < 10; i++) {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.status === 429) return response;
  }
  throw new Error("no 429 after 10 requests");
}

describe("429 against npm start", () => {
  it("reports the configured policy, then answers 429 rate_limited with Retry-After", async () => {
    const first = await fetch(`${server!.url}/v1/dataset`);
    await first.arrayBuffer();
    expect(first.headers.get("ratelimit-policy")).toBe('"anonymous";q=3;w=10');
    const limited = await exhaust(`${server!.url}/v1/dataset`);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit")).toMatch(/^"anonymous";r=0;t=\d+$/);
  });

  it("the client retries past a 429 and succeeds", async () => {
    const statuses: number[] = [];
    const fetchSeen: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const client = new PubsetClient({ url: server!.url, key: { keyId: server!.demoKey.key_id, secret: server!.demoKey.secret }, fetch: fetchSeen });
    for (let i = 0; i < 6; i++) {
      for await (const item of client.list()) void item;
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
  });

  it("the CLI retries past a 429 and exits 0", async () => {
    await exhaust(`${server!.url}/v1/dataset`);
    const run = await runInProcess(["ls", "--json"], { PUBSET_URL: server!.url, PUBSET_CONFIG: join(dir, "config.json") });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});
