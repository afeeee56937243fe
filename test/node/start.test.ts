// `npm start` end to end: a fresh state directory becomes a running local server with a demo
// key; the key is reused while the database accepts it and replaced once revoked; stopping
// leaves no process behind. (API behaviour is tested over HTTP elsewhere.)
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeKey } from "../../scripts/lib/api-keys.ts";
import type { D1Target } from "../../scripts/lib/d1.ts";
import { ensureDemoKey } from "../../scripts/lib/demo-key.ts";
import { masterKeyFor } from "../../scripts/lib/master-key.ts";
import { groupAlive, killGroup } from "./helpers/process-group.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { startServer, type RunningServer } from "./helpers/server.ts";

describe("npm start", () => {
  let server: RunningServer | undefined;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("serves HTTP on the chosen port", async () => {
    const response = await fetch(`${server!.url}/v1/dataset`);
    await response.body?.cancel();
    expect(response.status).toBeGreaterThanOrEqual(200);
  });

  it("sets PUBLIC_ORIGIN to its own address: absolute URLs name it, whatever Host a request sends", async () => {
    const document = (await (await fetch(`${server!.url}/openapi.json`)).json()) as { servers: Array<{ url: string }> };
    expect(document.servers).toEqual([{ url: server!.url }]);
    const foreign = (await (await fetch(`${server!.url}/openapi.json`, { headers: { "X-Forwarded-Host": "evil.example" } })).json()) as { servers: Array<{ url: string }> };
    expect(foreign.servers).toEqual([{ url: server!.url }]);
  });

  it("saves a demo key for team demo, user demo, and prints it with a signed example", () => {
    const { demoKeyFile, demoKey } = server!;
    expect(existsSync(demoKeyFile)).toBe(true);
    expect(JSON.parse(readFileSync(demoKeyFile, "utf8"))).toEqual(demoKey);
    expect(demoKey).toMatchObject({ team: "demo", user: "demo" });
    expect(demoKey.key_id).toMatch(/^pk_/);
    expect(server!.stdout()).toContain(demoKey.key_id);
    expect(server!.stdout()).toContain(`npm run sign -- POST ${server!.url}/v1/dataset`);
  });

  it("the banner's example runs as printed and makes a public dataset the catalog lists", async () => {
    const line = server!.stdout().split("\n").find((l) => l.includes("npm run sign -- POST"));
    expect(line).toBeDefined();
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile("sh", ["-c", line!.trim()], { cwd: PROJECT_ROOT }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as { id: string; visibility: string };
    expect(created.visibility).toBe("public");
    const anonymous = (await (await fetch(`${server!.url}/v1/dataset`)).json()) as { results: { id: string }[] };
    expect(anonymous.results.map((r) => r.id)).toContain(created.id);
    expect(await (await fetch(`${server!.url}/`)).text()).toContain(`/datasets/${created.id}`);
  });

  it("a second npm start on the busy port fails at once, before migrations or a banner", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "pubset-second-"));
    const child = spawn(process.execPath, ["scripts/start.ts", "--persist-to", stateDir], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PORT: new URL(server!.url).port },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    const started = Date.now();
    try {
      const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
      expect(code).toBe(1);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(err).toContain("already in use");
      expect(err).not.toMatch(/Applied \d+ D1 migration|D1 is up to date/);
      expect(out).not.toContain("demo key");
      expect(existsSync(join(stateDir, "demo-key.json"))).toBe(false);
    } finally {
      if (child.pid !== undefined) await killGroup(child.pid, 1_000);
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("keeps the demo key while it is valid and replaces it once revoked (while the server runs)", async () => {
    const target: D1Target = { kind: "local", persistTo: server!.stateDir };
    const masterKey = masterKeyFor(target);
    const kept = await ensureDemoKey(target, masterKey, server!.demoKeyFile);
    expect(kept).toEqual({ key: server!.demoKey, created: false });

    await revokeKey(target, server!.demoKey.key_id);
    const replaced = await ensureDemoKey(target, masterKey, server!.demoKeyFile);
    expect(replaced.created).toBe(true);
    expect(replaced.key.key_id).not.toBe(server!.demoKey.key_id);
    expect(JSON.parse(readFileSync(server!.demoKeyFile, "utf8"))).toEqual(replaced.key);
  });

  it("stops with its whole process tree", async () => {
    const { pid } = server!;
    await server!.stop();
    server = undefined;
    expect(groupAlive(pid)).toBe(false);
  });
});
