// Runs a Node script (wrangler, scripts/keys.ts) to completion under a deadline. It gets its own
// process group, so a timeout also ends whatever it started (wrangler's workerd).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/paths.ts";
import { wranglerEnv } from "../lib/wrangler.ts";

/** The project's own wrangler, run with the Node that runs the bench (v24 under npm). */
export const WRANGLER_BIN = join(PROJECT_ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

export async function runBounded(what: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  const child = spawn(process.execPath, args, { cwd, env: wranglerEnv(), stdio: ["ignore", "pipe", "pipe"], detached: true });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  process.on("exit", killGroup);
  const code = await new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve(status ?? 1));
  }).finally(() => {
    clearTimeout(timer);
    process.off("exit", killGroup);
  });
  const stdout = Buffer.concat(out).toString("utf8");
  if (timedOut) throw new Error(`${what} timed out after ${timeoutMs / 1000} s`);
  if (code !== 0) {
    const detail = (Buffer.concat(err).toString("utf8").trim() || stdout.trim()).split("\n").slice(-15).join("\n");
    throw new Error(`${what} failed (exit ${code}):\n${detail}`);
  }
  return stdout;
}
