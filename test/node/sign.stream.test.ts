// `npm run sign` streams the file it sends: a 150 MB CSV goes to a server that takes it in one
// request while the script's peak RSS (VmHWM) stays under 200 MB; a body over the server's
// limit gets a 413 that names the limit and the CLI command that sends the file resumably.
import { execFile, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { startServer, type RunningServer } from "./helpers/server.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

const FILE_BYTES = 150_000_000;
const dir = mkdtempSync(join(tmpdir(), "pubset-sign-stream-"));
const big = join(dir, "big.csv");
let roomy: RunningServer;
let shared: E2eServer & { stop(): Promise<void> };

beforeAll(async () => {
  // Seeded rows written in slabs, so making the file costs little memory in the test either.
  const fd = openSync(big, "w");
  let size = 0;
  let i = 0;
  writeSync(fd, "id,name,score\n");
  while (size < FILE_BYTES) {
    let slab = "";
    for (let j = 0; j < 20_000; j++, i++) slab += `${i},name ${(i * 7919) % 10007},${(i * 31) % 997}.5\n`;
    size += writeSync(fd, slab);
  }
  closeSync(fd);
  // Both awaited before failing, so a server that did start is stopped by afterAll, never left behind.
  const [a, b] = await Promise.allSettled([startServer({ vars: { MAX_UPLOAD_BYTES: String(200 * 1024 * 1024) }, readyTimeoutMs: 180_000 }), e2eServer()]);
  if (a.status === "fulfilled") roomy = a.value;
  if (b.status === "fulfilled") shared = b.value;
  for (const result of [a, b]) if (result.status === "rejected") throw result.reason;
}, 300_000);

afterAll(async () => {
  await Promise.all([roomy?.stop(), shared?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** scripts/sign.ts as `npm run sign` runs it, with its peak resident set size in bytes. */
function sign(args: string[], key: { key_id: string; secret: string }): Promise<{ code: number; stdout: string; stderr: string; peakRss: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/sign.ts", ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, PUBSET_KEY_ID: key.key_id, PUBSET_SECRET: key.secret },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let peakRss = 0;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    // VmHWM is the peak so far, so the last reading before exit is the run's peak.
    const watch = setInterval(() => {
      try {
        const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
        if (kb !== undefined) peakRss = Math.max(peakRss, Number(kb) * 1024);
      } catch {
        // gone
      }
    }, 50);
    child.on("exit", (code) => {
      clearInterval(watch);
      resolve({ code: code ?? -1, stdout, stderr, peakRss });
    });
  });
}

it("sends a 150 MB file with flat memory", async () => {
  const run = await sign(["POST", `${roomy.url}/v1/dataset`, "--collection", '{"name":"Big"}', "--dataset", big], roomy.demoKey);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain("HTTP 201");
  expect(run.peakRss).toBeGreaterThan(0);
  expect(run.peakRss, `peak RSS ${Math.round(run.peakRss / 1e6)} MB`).toBeLessThan(200 * 1000 * 1000);
  const { id } = JSON.parse(run.stdout) as { id: string };
  const record = await new Promise<string>((resolve) =>
    execFile(process.execPath, ["scripts/sign.ts", "GET", `${roomy.url}/v1/dataset/${id}`], { cwd: PROJECT_ROOT, env: { ...process.env, PUBSET_KEY_ID: roomy.demoKey.key_id, PUBSET_SECRET: roomy.demoKey.secret } }, (_e, out) => resolve(out)),
  );
  expect(JSON.parse(record)).toMatchObject({ id, name: "Big" });
});

it("a 413 names the limit and the CLI command that sends the file resumably", async () => {
  const run = await sign(["POST", `${shared.url}/v1/dataset`, "--collection", '{"name":"Too big"}', "--dataset", big], shared.demoKey);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("HTTP 413");
  expect(run.stderr).toMatch(/The server takes at most \d+\.\d MiB \(\d+ bytes\) in one request; this one had 143\.\d MiB\./);
  expect(run.stderr).toContain(`npx pubset create ${big} --name 'Too big' --url ${shared.url}`);
});
