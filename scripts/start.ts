// `npm start`: everything a fresh clone needs to serve pubset locally with no account and no
// questions asked: a master key in .dev.vars, migrated local D1, a demo key, then `wrangler dev`.
import { constants } from "node:os";
import { relative } from "node:path";
import { parseArgs } from "node:util";
import { reportError, UsageError } from "./lib/cli-errors.ts";
import { applyLocalMigrations, type D1Target } from "./lib/d1.ts";
import { ensureDemoKey } from "./lib/demo-key.ts";
import { masterKeyFor } from "./lib/master-key.ts";
import { DEFAULT_DEMO_KEY_FILE, PROJECT_ROOT } from "./lib/paths.ts";
import { assertPortFree } from "./lib/port.ts";
import { demoKeyFile, stateDirFrom } from "./lib/state-dir.ts";
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

function banner(key: { key_id: string; secret: string }, keyFile: string, created: boolean, port: number): string {
  const origin = `http://127.0.0.1:${port}`;
  // `npm run sign` finds .pubset/demo-key.json by itself; a key kept elsewhere goes in its env.
  const keyEnv = keyFile === DEFAULT_DEMO_KEY_FILE ? "" : `PUBSET_KEY_ID=${key.key_id} PUBSET_SECRET=${key.secret} `;
  return `
pubset demo key (${created ? "new" : "existing"}, saved in ${display(keyFile)}):
  key_id  ${key.key_id}
  secret  ${key.secret}
  team    demo
  user    demo

Once the server below is ready, try a signed upload (public, so the catalog at ${origin}/ shows it):
  ${keyEnv}npm run sign -- POST ${origin}/v1/dataset --collection '{"name":"Cities","visibility":"public"}' --dataset examples/cities.csv

More keys: npm run keys -- create --team T --user U

`;
}

/** Runs `wrangler dev` in the foreground, forwarding signals; resolves with its exit code. */
function runDevServer(stateDir: string | undefined, port: number, extra: string[]): Promise<number> {
  const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  // docs/edge-and-caching.md "One origin": absolute URLs in pages and /openapi.json name this server.
  args.push("--var", `PUBLIC_ORIGIN:http://127.0.0.1:${port}`);
  // Workers Cache does not run under wrangler dev; the Worker's own cache stands in for it.
  args.push("--var", "EDGE_CACHE:in-worker");
  if (stateDir !== undefined) args.push("--persist-to", stateDir);
  const child = spawnWrangler([...args, ...extra], ["ignore", "inherit", "inherit"]);
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward);
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
  process.stderr.write(`Applying local D1 migrations (${stateDir === undefined ? ".wrangler/state" : display(stateDir)})…\n`);
  process.stderr.write(await applyLocalMigrations(stateDir));
  const keyFile = demoKeyFile(stateDir);
  const { key, created } = await ensureDemoKey(target, masterKey, keyFile);
  process.stdout.write(banner(key, keyFile, created, port));
  return runDevServer(stateDir, port, extra);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(reportError(error, "see: npm start -- --help")),
);
