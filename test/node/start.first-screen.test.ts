// The first `npm start` fits on a screen (≤ 60 lines, stdout and stderr as a terminal shows them,
// interleaved): the migrations are one line naming the log with wrangler's whole output, and the
// demo key with the next commands is in the last 20 lines. A later start is as short.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { killGroup } from "./helpers/process-group.ts";
import { PROJECT_ROOT } from "./helpers/run-script.ts";
import { freePort, inspectorPort } from "./helpers/server.ts";

const stateDir = mkdtempSync(join(tmpdir(), "pubset-first-screen-"));
const MIGRATIONS = readdirSync(join(PROJECT_ROOT, "migrations")).filter((name) => name.endsWith(".sql")).length;
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** `npm start` until its banner is printed; the screen as one text, both streams in order. */
async function firstScreen(name: string): Promise<string[]> {
  const screen = join(stateDir, `${name}.screen`);
  const fd = openSync(screen, "w");
  const child = spawn(process.execPath, ["scripts/start.ts", "--persist-to", stateDir, "--", "--inspector-port", String(await inspectorPort())], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(await freePort()) },
    stdio: ["ignore", fd, fd],
    detached: true,
  });
  closeSync(fd);
  let exited = false;
  child.on("exit", () => (exited = true));
  try {
    // A hang guard, as in helpers/server.ts: other test files may run beside this one.
    const deadline = Date.now() + 150_000;
    for (;;) {
      const text = readFileSync(screen, "utf8");
      if (text.includes("npm run keys -- create")) return text.trimEnd().split("\n");
      if (exited || Date.now() > deadline) throw new Error(`npm start printed no banner:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await killGroup(child.pid!);
  }
}

it("a first start fits on a screen and ends with the demo key and what to run next; a later one too", async () => {
  const first = await firstScreen("first");
  expect(first.length, first.join("\n")).toBeLessThanOrEqual(60);
  const summary = first.find((line) => line.startsWith("Applied "));
  const match = /^Applied (\d+) D1 migrations \(.*\); wrangler's output: (\S+)$/.exec(summary ?? "");
  expect(match, first.join("\n")).not.toBeNull();
  expect(Number(match![1])).toBe(MIGRATIONS);
  const log = match![2]!;
  expect(existsSync(log)).toBe(true);
  expect(readFileSync(log, "utf8")).toContain("commands executed successfully");
  expect(first.join("\n")).not.toContain("commands executed successfully");

  const key = JSON.parse(readFileSync(join(stateDir, "demo-key.json"), "utf8")) as { key_id: string; secret: string };
  const last = first.slice(-20).join("\n");
  expect(last).toContain(`key_id  ${key.key_id}`);
  expect(last).toContain(`secret  ${key.secret}`);
  expect(last).toMatch(/^ {2}npx pubset login --url http:\/\/127\.0\.0\.1:\d+ --key-id \S+ --secret \S+$/m);
  expect(last).toMatch(/^ {2}npx pubset create examples\/cities\.csv --name Cities --public$/m);
  expect(last).toMatch(/^ {2}npx pubset ls$/m);

  const later = await firstScreen("later");
  expect(later.length, later.join("\n")).toBeLessThanOrEqual(first.length);
  expect(later.join("\n")).toMatch(/^D1 is up to date \(.*\); wrangler's output: \S+$/m);
  expect(later.slice(-20).join("\n")).toContain(`key_id  ${key.key_id}`);
}, 330_000);
