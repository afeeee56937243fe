// `npm start`: everything a fresh clone needs to serve pubset locally with no account and no
// questions asked: a master key in .dev.vars, migrated local D1, a demo key, then `wrangler dev`.
// It fits on a screen: the migrations are one line, wrangler's full output goes to log files,
// and the demo key with the next commands comes last, once the server is ready.
import { constants } from "node:os";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { reportError, UsageError } from "./lib/cli-errors.ts";
import type { D1Target } from "./lib/d1.ts";
import { applyLocalMigrations, type MigrationsApplied } from "./lib/local-migrations.ts";
import { ensureDemoKey } from "./lib/demo-key.ts";
import { masterKeyFor } from "./lib/master-key.ts";
import { DEFAULT_DEMO_KEY_FILE, PROJECT_ROOT } from "./lib/paths.ts";
import { assertPortFree } from "./lib/port.ts";
import { devLineFilter, logFile, relayLines } from "./lib/dev-output.ts";
import { demoKeyFile, logDir, stateDirFrom } from "./lib/state-dir.ts";
import { spawnWrangler } from "./lib/wrangler.ts";

const USAGE = `usage: npm start [-- [--persist-to DIR] [-- <more wrangler dev flags>]]

  --persist-to DIR   local state directory (default: env PUBSET_STATE_DIR, else .wrangler/state)
  env PORT           port to listen on (default 8787), always on 127.0.0.1`;

const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

function options(argv: string[]) {
  const split = argv.indexOf("--");
  const ours = split === -1 ? argv : argv.slice(0, split);
  const extra = split === -1 ? [] : argv.slice(split + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: ours,
      options: { "persist-to": { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const port = Number(process.env.PORT ?? "8787");
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`PORT must be 1-65535, not ${process.env.PORT}`);
  return { help: parsed.values.help === true, stateDir: stateDirFrom(parsed.values["persist-to"]), port, extra };
}

function display(path: string): string {
  const rel = relative(PROJECT_ROOT, path);
  return rel.startsWith("..") ? path : rel;
}

/** What the user needs next, printed once wrangler says it is ready, so it ends the first screen. */
function banner(key: { key_id: string; secret: string }, keyFile: string, created: boolean, port: number): string {
  const origin = `http://127.0.0.1:${port}`;
  // `npm run sign` finds .pubset/demo-key.json by itself; a key kept elsewhere goes in its env.
  const keyEnv = keyFile === DEFAULT_DEMO_KEY_FILE ? "" : `PUBSET_KEY_ID=${key.key_id} PUBSET_SECRET=${key.secret} `;
  return `
pubset is serving ${origin}: the catalog at /, the API reference at /docs. Ctrl-C stops it.

Demo key for team demo, user demo (${created ? "new" : "existing"}, saved in ${display(keyFile)}):
  key_id  ${key.key_id}
  secret  ${key.secret}

Next, in another terminal (the dataset is public, so the catalog shows it):
  npx pubset login --url ${origin} --key-id ${key.key_id} --secret ${key.secret}
  npx pubset create examples/cities.csv --name Cities --public
  npx pubset ls
Or one signed request by hand, and more keys:
  ${keyEnv}npm run sign -- POST ${origin}/v1/dataset --collection '{"name":"Cities","visibility":"public"}' --dataset examples/cities.csv
  npm run keys -- create --team T --user U
`;
}

/** One line for the migrations; which were applied, and wrangler's output, go to `log`. */
function migrationsLine({ applied }: MigrationsApplied, where: string, log: string): string {
  const what = applied.length === 0 ? "D1 is up to date" : `Applied ${applied.length} D1 migration${applied.length === 1 ? "" : "s"}`;
  return `${what} (${where}); wrangler's output: ${display(log)}\n`;
}

/**
 * Runs `wrangler dev` in the foreground, forwarding signals, its output filtered on the screen
 * and whole in `logPath`; calls `onReady` once it serves. Resolves with its exit code.
 */
function runDevServer(stateDir: string | undefined, port: number, extra: string[], logPath: string, onReady: () => void): Promise<number> {
  const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  // docs/edge-and-caching.md "One origin": absolute URLs in pages and /openapi.json name this server.
  args.push("--var", `PUBLIC_ORIGIN:http://127.0.0.1:${port}`);
  // Workers Cache does not run under wrangler dev; the Worker's own cache stands in for it.
  args.push("--var", "EDGE_CACHE:in-worker");
  // docs/changes.md "Webhook safety": local development may deliver webhooks to http://127.0.0.1.
  args.push("--var", "WEBHOOKS_ALLOW_LOCALHOST:true");
  if (stateDir !== undefined) args.push("--persist-to", stateDir);
  const child = spawnWrangler([...args, ...extra], ["ignore", "pipe", "pipe"]);
  const log = logFile(logPath);
  log.write(`--- npm start, ${new Date().toISOString()}\n`);
  let ready = false;
  const onLine = (line: string) => {
    if (!ready && /Ready on http/.test(line)) {
      ready = true;
      onReady();
    }
  };
  const show = devLineFilter();
  if (child.stdout) relayLines(child.stdout, process.stdout, log, show, onLine);
  if (child.stderr) relayLines(child.stderr, process.stderr, log, show, onLine);
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward);
      log.end();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 1));
    });
  });
}

async function main(argv: string[]): Promise<number> {
  const { help, stateDir, port, extra } = options(argv);
  if (help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  await assertPortFree(port);
  const target: D1Target = stateDir === undefined ? { kind: "local" } : { kind: "local", persistTo: stateDir };
  const masterKey = masterKeyFor(target);
  const logs = logDir(stateDir);
  const migrationsLog = join(logs, "migrations.log");
  const where = stateDir === undefined ? ".wrangler/state" : display(stateDir);
  // On a terminal, a line that says what the wait is for, replaced by the summary.
  const terminal = process.stderr.isTTY === true;
  if (terminal) process.stderr.write(`Migrating the local D1 (${where})…`);
  const migrations = await applyLocalMigrations(stateDir);
  mkdirSync(logs, { recursive: true });
  writeFileSync(migrationsLog, [...migrations.applied.map((name) => `applied ${name}\n`), migrations.output].join(""));
  process.stderr.write(`${terminal ? "\r\x1b[2K" : ""}${migrationsLine(migrations, where, migrationsLog)}`);
  const keyFile = demoKeyFile(stateDir);
  const { key, created } = await ensureDemoKey(target, masterKey, keyFile);
  return runDevServer(stateDir, port, extra, join(logs, "wrangler-dev.log"), () => process.stdout.write(banner(key, keyFile, created, port)));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(reportError(error, "see: npm start -- --help")),
);
