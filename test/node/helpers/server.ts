// A real `npm start` (node scripts/start.ts → wrangler dev → workerd) on a free port with its
// own temp state directory, for end-to-end tests over HTTP. Always call stop().
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killGroup } from "./process-group.ts";
import { PROJECT_ROOT } from "./run-script.ts";

export interface DemoKey {
  key_id: string;
  secret: string;
  team: string;
  user: string;
}

export interface RunningServer {
  /** Origin without a trailing slash, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Process id (and process-group id) of scripts/start.ts. */
  pid: number;
  demoKey: DemoKey;
  stateDir: string;
  demoKeyFile: string;
  /** Everything the server printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Stops the whole process tree and removes the state directory if startServer made it. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Reuse a state directory (kept on stop); default: a fresh temp dir, removed on stop. */
  stateDir?: string;
  /** A hang guard: wrangler dev starts in ~10 s idle, past a minute with other files beside it. */
  readyTimeoutMs?: number;
  /** Serve with these rate limits (quota per period of 10 or 60 s) instead of wrangler.toml's. */
  rateLimits?: { signed: { limit: number; period: 10 | 60 }; anonymous: { limit: number; period: 10 | 60 } };
  /** wrangler.toml vars to serve with other values, e.g. { MAX_UPLOAD_BYTES: "200000000" }. */
  vars?: Record<string, string>;
}

/**
 * A copy of wrangler.toml in `dir` with other rate limits (binding and vars alike), its paths
 * made absolute, and `.dev.vars` linked beside it (wrangler reads it next to the config).
 */
function configWithRateLimits(dir: string, limits: NonNullable<StartOptions["rateLimits"]>): string {
  let toml = readFileSync(join(PROJECT_ROOT, "wrangler.toml"), "utf8");
  toml = toml.replace(/^main = "(.*)"$/m, (_, path: string) => `main = ${JSON.stringify(join(PROJECT_ROOT, path))}`);
  toml = toml.replace(/^migrations_dir = "(.*)"$/m, (_, path: string) => `migrations_dir = ${JSON.stringify(join(PROJECT_ROOT, path))}`);
  for (const [binding, varName, limit] of [
    ["SIGNED_RATE_LIMIT", "RATE_LIMIT_SIGNED", limits.signed],
    ["ANONYMOUS_RATE_LIMIT", "RATE_LIMIT_ANONYMOUS", limits.anonymous],
  ] as const) {
    const block = new RegExp(`(name = "${binding}"\\nnamespace_id = "\\d+"\\nsimple = )\\{[^}]*\\}`);
    if (!block.test(toml)) throw new Error(`wrangler.toml has no ${binding} block in the expected form`);
    toml = toml.replace(block, `$1{ limit = ${limit.limit}, period = ${limit.period} }`);
    toml = toml.replace(new RegExp(`^${varName} = ".*"$`, "m"), `${varName} = "${limit.limit}/${limit.period}"`);
  }
  const file = join(dir, "wrangler.toml");
  writeFileSync(file, toml);
  symlinkSync(join(PROJECT_ROOT, ".dev.vars"), join(dir, ".dev.vars"));
  return file;
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** `PUBSET_TEST_PORTS=8810-8819`: the ports a shared machine gives this run's servers; unset, any free port. */
function portRange(): { from: number; to: number } | null {
  const match = /^(\d+)-(\d+)$/.exec(process.env.PUBSET_TEST_PORTS ?? "");
  return match ? { from: Number(match[1]), to: Number(match[2]) } : null;
}

const handedOut = new Set<number>();

/** A port free when asked; from PUBSET_TEST_PORTS when set, each handed out once until its server stops. */
export async function freePort(): Promise<number> {
  const range = portRange();
  if (range === null) return listenOnce(0);
  for (let port = range.from; port <= range.to; port++) {
    if (handedOut.has(port)) continue;
    try {
      await listenOnce(port);
      handedOut.add(port);
      return port;
    } catch {
      // Taken: try the next one.
    }
  }
  throw new Error(`no free port left in PUBSET_TEST_PORTS=${process.env.PUBSET_TEST_PORTS}`);
}

/**
 * `--inspector-port` for a `wrangler dev` a test starts. Left to wrangler, every server tries
 * 9229 and two starting together can both find it free; one then dies with "Address already in
 * use (socket "direct:1:default")". Port 0 lets the kernel choose; with a range, it stays inside.
 */
export async function inspectorPort(): Promise<number> {
  return portRange() !== null ? freePort() : 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `npm start` on a free port. The port is free when chosen, but another process may bind it
 * before wrangler does (tests start servers in parallel): that attempt is retried on a new port.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(options);
    } catch (error: unknown) {
      if (attempt >= 3 || !/Address already in use|is already in use/.test(String(error))) throw error;
    }
  }
}

async function startServerOnce(options: StartOptions): Promise<RunningServer> {
  const ownsStateDir = options.stateDir === undefined;
  const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "pubset-server-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configDir = options.rateLimits ? mkdtempSync(join(tmpdir(), "pubset-config-")) : undefined;
  const wranglerArgs = configDir && options.rateLimits ? ["--config", configWithRateLimits(configDir, options.rateLimits)] : [];
  const inspector = await inspectorPort();
  wranglerArgs.push("--inspector-port", String(inspector));
  for (const [name, value] of Object.entries(options.vars ?? {})) wranglerArgs.push("--var", `${name}:${value}`);
  if (wranglerArgs.length > 0) wranglerArgs.unshift("--");
  const child = spawn(process.execPath, ["scripts/start.ts", "--persist-to", stateDir, ...wranglerArgs], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not spawn scripts/start.ts");
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  let exited = false;
  child.on("exit", () => (exited = true));

  const stop = async () => {
    await killGroup(pid);
    handedOut.delete(port);
    handedOut.delete(inspector);
    if (ownsStateDir) rmSync(stateDir, { recursive: true, force: true });
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  };

  const demoKeyFile = join(stateDir, "demo-key.json");
  const deadline = Date.now() + (options.readyTimeoutMs ?? 150_000);
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`npm start exited before serving\n--- stdout\n${out}\n--- stderr\n${err}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`no HTTP answer from ${url} in time\n--- stdout\n${out}\n--- stderr\n${err}`);
    }
    try {
      const response = await fetch(`${url}/v1/dataset`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      // Ours writes its demo key before it serves: an answer without it came from another
      // test's server that took the port first, and ours will exit "Address already in use".
      // The banner follows wrangler's "Ready on" a moment after the port answers.
      if (existsSync(demoKeyFile) && out.includes("npm run keys -- create")) break;
      await sleep(250);
    } catch {
      await sleep(250);
    }
  }

  const demoKey = JSON.parse(readFileSync(demoKeyFile, "utf8")) as DemoKey;
  return { url, pid, demoKey, stateDir, demoKeyFile, stdout: () => out, stderr: () => err, stop };
}

