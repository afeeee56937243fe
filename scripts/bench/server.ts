// The worker under test: a fresh state directory with migrations and a bench key, then
// `wrangler dev --local` in its own process group, killed as a group whatever way the bench ends.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/paths.ts";
import { wranglerEnv } from "../lib/wrangler.ts";
import type { SigningKey } from "../../src/wire/sign.ts";
import { runBounded, WRANGLER_BIN } from "./run-bounded.ts";
import { commandLine, workerdDescendants } from "./rss.ts";
import type { WorkerBuild } from "./worker-build.ts";

const KEYS_SCRIPT = join(PROJECT_ROOT, "scripts", "keys.ts");
const START_TIMEOUT_MS = 180_000;
const SETUP_TIMEOUT_MS = 180_000;
const STOP_GRACE_MS = 5_000;

export interface RunningServer {
  origin: string;
  /** wrangler dev's DevTools port, which reaches the worker's isolate. */
  inspectorPort: number;
  /** The workerd running pubset (looked up on each call: a reload replaces it). */
  workerPid(): number;
  /** The workerd of wrangler's dev proxy, which listens on the port and forwards to the worker. */
  proxyPid(): number | null;
  /** From spawning `wrangler dev` to its first 200 answer (polled every 250 ms). */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * wrangler dev runs two workerd processes: its proxy on the requested port
 * (`--socket-addr=entry=127.0.0.1:PORT`) and the user worker on a port of its own.
 */
function workerdRoles(wranglerPid: number, port: number): { worker: number[]; proxy: number[] } {
  const all = workerdDescendants(wranglerPid);
  const isProxy = (pid: number) => commandLine(pid).includes(`--socket-addr=entry=127.0.0.1:${port} `);
  return { worker: all.filter((pid) => !isProxy(pid)), proxy: all.filter(isProxy) };
}

/** A port nothing listens on right now (the kernel's pick), on 127.0.0.1. */
export function freePort(): Promise<number> {
  const range = process.env.BENCH_PORTS;
  if (range) return portInRange(range);
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

/** Ports handed out from BENCH_PORTS (`FIRST-LAST`), on a machine where each user keeps to a range. */
const portsTaken = new Set<number>();

async function portInRange(range: string): Promise<number> {
  const [first, last] = range.split("-").map(Number);
  if (!Number.isInteger(first) || !Number.isInteger(last) || first! > last!) throw new Error(`BENCH_PORTS must be FIRST-LAST, not ${range}`);
  for (let port = first!; port <= last!; port++) {
    if (portsTaken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) {
      portsTaken.add(port);
      return port;
    }
  }
  throw new Error(`no free port in BENCH_PORTS ${range}`);
}

/** Makes a key with scripts/keys.ts, which applies the migrations to `stateDir` first (and writes .dev.vars). */
export async function prepareState(stateDir: string): Promise<SigningKey> {
  const create = [KEYS_SCRIPT, "create", "--team", "bench", "--user", "bench", "--persist-to", stateDir];
  const stdout = await runBounded("keys create", create, PROJECT_ROOT, SETUP_TIMEOUT_MS);
  const key = JSON.parse(stdout.trim().split("\n").pop() ?? "") as { key_id?: unknown; secret?: unknown };
  if (typeof key.key_id !== "string" || typeof key.secret !== "string") throw new Error(`keys create printed no key: ${stdout}`);
  return { keyId: key.key_id, secret: key.secret };
}

/** Signals wrangler's whole process group (wrangler, its workerd, anything else they started). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

async function waitUntilServing(origin: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`wrangler dev exited early; see ${log}`);
    try {
      const response = await fetch(`${origin}/v1/dataset?limit=1`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not serve within ${START_TIMEOUT_MS / 1000} s; see ${log}`);
}

function closed(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => stream.end(resolve));
}

/**
 * Starts `wrangler dev` on the bundled bench entry (see worker-build.ts), on `port`; logs go to
 * `logFile`.
 */
export async function startServer(build: WorkerBuild, stateDir: string, port: number, logFile: string, vars: Record<string, string> = {}, inspector?: number): Promise<RunningServer> {
  const inspectorPort = inspector ?? (await freePort());
  const args = [
    "dev", build.script, "--no-bundle", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort),
    "--persist-to", stateDir, "--show-interactive-dev-session=false",
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const spawned = performance.now();
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
    cwd: build.dir,
    env: wranglerEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const killNow = () => killGroup(child, "SIGKILL");
  process.on("exit", killNow);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    // wrangler's exit can leave workerd behind for a moment; the group goes with it.
    killNow();
    process.off("exit", killNow);
    child.stdout?.unpipe(log);
    child.stderr?.unpipe(log);
    await closed(log);
  };
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(origin, child, logFile);
    const readyMs = performance.now() - spawned;
    const wranglerPid = child.pid ?? 0;
    const workerPid = () => {
      const { worker } = workerdRoles(wranglerPid, port);
      if (worker.length !== 1) throw new Error(`expected one worker workerd below wrangler (pid ${wranglerPid}), found ${worker.length}`);
      return worker[0] as number;
    };
    workerPid();
    return { origin, inspectorPort, workerPid, proxyPid: () => workerdRoles(wranglerPid, port).proxy[0] ?? null, readyMs, stop };
  } catch (error: unknown) {
    await stop();
    throw error;
  }
}
