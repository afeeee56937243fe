// A plain `wrangler dev` on a fresh clone (issue 13): no migrations applied and no .dev.vars.
// The worker must answer 503 with the command that fixes it (problem+json for the API, a page
// for the catalog) and say so in its log; after the migrations, a signed request without
// KEY_ENCRYPTION_KEY is a 503 that names the variable, never a 500 or "not base64".
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWrangler, spawnWrangler } from "../../scripts/lib/wrangler.ts";
import { signRequest } from "../../src/wire/sign.ts";
import { killGroup } from "./helpers/process-group.ts";
import { PROJECT_ROOT, runScript } from "./helpers/run-script.ts";
import { freePort, inspectorPort } from "./helpers/server.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let config: string;
let state: string;
let url: string;
let pid: number | undefined;
let log = "";

beforeAll(async () => {
  // The fresh clone: wrangler.toml alone in a directory (so no .dev.vars beside it), pointing
  // at this checkout's code and migrations, and an empty state directory.
  dir = mkdtempSync(join(tmpdir(), "pubset-fresh-"));
  state = join(dir, "state");
  config = join(dir, "wrangler.toml");
  copyFileSync(join(PROJECT_ROOT, "wrangler.toml"), config);
  const toml = readFileSync(config, "utf8")
    .replace(/^main = .*$/m, `main = ${JSON.stringify(join(PROJECT_ROOT, "src/index.ts"))}`)
    .replace(/^migrations_dir = .*$/m, `migrations_dir = ${JSON.stringify(join(PROJECT_ROOT, "migrations"))}`);
  writeFileSync(config, toml);
  // A free port can be taken between the probe and wrangler's bind by the other test files'
  // servers starting at the same time; then try another.
  for (let attempt = 1; ; attempt++) {
    if (await startWrangler()) return;
    if (attempt === 3 || !log.includes("Address already in use")) throw new Error(`wrangler dev exited\n${log}`);
  }
});

/** Starts `wrangler dev` on a free port; false when it exited before answering. */
async function startWrangler(): Promise<boolean> {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  log = "";
  const child = spawnWrangler(
    ["dev", "--config", config, "--local", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state, "--show-interactive-dev-session=false", "--inspector-port", String(await inspectorPort())],
    ["ignore", "pipe", "pipe"],
  );
  pid = child.pid;
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) return false;
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer in time\n${log}`);
    try {
      await (await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(2_000) })).body?.cancel();
      return true;
    } catch {
      await sleep(250);
    }
  }
}

afterAll(async () => {
  // spawnWrangler does not detach; wrangler's own children follow it when it exits.
  if (pid !== undefined) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
    await killGroup(pid, 5_000).catch(() => undefined);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("wrangler dev on a fresh clone", () => {
  it("unmigrated: the API answers 503 not_initialized naming the command, the catalog a 503 page, the log says so", async () => {
    const api = await fetch(`${url}/v1/dataset`);
    expect(api.status).toBe(503);
    expect(api.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await api.json()) as { code: string; detail: string };
    expect(problem.code).toBe("not_initialized");
    expect(problem.detail).toContain("npx wrangler d1 migrations apply pubset --local");

    const page = await fetch(`${url}/`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("npx wrangler d1 migrations apply pubset --local");
    await sleep(200);
    expect(log).toContain("not_initialized");
  });

  it("migrated but without KEY_ENCRYPTION_KEY: reads work, a signed request is 503 not_configured", async () => {
    const migrated = await runWrangler(["d1", "migrations", "apply", "pubset", "--local", "--persist-to", state, "--config", config]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((await fetch(`${url}/v1/dataset`)).status).toBe(200);

    // A key sealed under this checkout's .dev.vars, in the fresh state's D1.
    const made = await runScript("keys.ts", ["create", "--team", "fresh", "--user", "fresh", "--persist-to", state]);
    expect(made.code, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout) as { key_id: string; secret: string };
    const headers = await signRequest({ method: "GET", url: `${url}/v1/dataset`, headers: new Headers() }, { keyId: key.key_id, secret: key.secret });
    const signed = await fetch(`${url}/v1/dataset`, { headers });
    expect(signed.status).toBe(503);
    const problem = (await signed.json()) as { code: string; detail: string };
    expect(problem.code).toBe("not_configured");
    expect(problem.detail).toContain("KEY_ENCRYPTION_KEY is not set");
    await sleep(200);
    expect(log).toContain("KEY_ENCRYPTION_KEY is not set");
    expect(log).not.toContain("not base64");
  });
});
