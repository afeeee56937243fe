// Runs the project's own wrangler (never a global one) with telemetry off, from the project
// root so it finds wrangler.toml, .dev.vars and migrations/.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PROJECT_ROOT } from "./paths.ts";

export interface WranglerResult {
  code: number;
  stdout: string;
  stderr: string;
}

function wranglerBin(): string {
  const require = createRequire(join(PROJECT_ROOT, "package.json"));
  const manifestPath = require.resolve("wrangler/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: Record<string, string> };
  const bin = manifest.bin["wrangler"];
  if (bin === undefined) throw new Error("the installed wrangler package has no `wrangler` bin");
  return join(dirname(manifestPath), bin);
}

/**
 * Telemetry off. The `Request.cf` download is off unless the caller set it: local serving needs
 * no network, and without one miniflare would wait 3 s and print a stack trace on every start.
 */
export function wranglerEnv(): NodeJS.ProcessEnv {
  return { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env, WRANGLER_SEND_METRICS: "false" };
}

/** Starts wrangler with the given stdio; the caller owns the process. */
export function spawnWrangler(args: string[], stdio: StdioOptions): ChildProcess {
  return spawn(process.execPath, [wranglerBin(), ...args], { cwd: PROJECT_ROOT, env: wranglerEnv(), stdio });
}

/** Runs wrangler to completion with no input, capturing what it prints. */
export function runWrangler(args: string[]): Promise<WranglerResult> {
  return new Promise((resolve, reject) => {
    const child = spawnWrangler(args, ["ignore", "pipe", "pipe"]);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}
