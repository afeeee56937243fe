// `npm run keys -- create|list|revoke`: manage API keys (docs/api.md#signing-requests) in the local D1 (default) or
// the deployed one (--remote). Results go to stdout; wrangler's output and errors to stderr.
import { parseArgs } from "node:util";
import { createKey, isValidId, isValidKeyId, listKeys, revokeKey, type KeyListing } from "./lib/api-keys.ts";
import { reportError, UsageError } from "./lib/cli-errors.ts";
import type { D1Target } from "./lib/d1.ts";
import { masterKeyFor } from "./lib/master-key.ts";
import { stateDirFrom } from "./lib/state-dir.ts";

const USAGE = `usage: npm run keys -- <command> [options]

commands:
  create --team T --user U   create a key (and the team and user when missing);
                             prints {"key_id","secret","team","user"} as one JSON line
  list [--json]              list keys as a table, or as JSON lines with --json
  revoke ID                  revoke a key

options:
  --remote            use the deployed database (create needs env PUBSET_KEY_ENCRYPTION_KEY)
  --persist-to DIR    local state directory (default: env PUBSET_STATE_DIR, else .wrangler/state)

team and user ids: 1-64 characters of [A-Za-z0-9._-]. Exit codes: 0 ok, 1 usage, 2 failure.`;

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        team: { type: "string" },
        user: { type: "string" },
        json: { type: "boolean" },
        remote: { type: "boolean" },
        "persist-to": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function targetFrom(remote: boolean, persistTo: string | undefined): D1Target {
  if (remote && persistTo !== undefined) throw new UsageError("--persist-to is for the local database, not with --remote");
  if (remote) return { kind: "remote" };
  const dir = stateDirFrom(persistTo);
  return dir === undefined ? { kind: "local" } : { kind: "local", persistTo: dir };
}

function onlyOptions(given: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(given).filter((name) => given[name] !== undefined && !allowed.includes(name));
  if (extra.length > 0) throw new UsageError(`option not valid here: --${extra.join(", --")}`);
}

function formatTable(keys: KeyListing[]): string {
  const header = ["KEY_ID", "TEAM", "USER", "CREATED", "REVOKED"];
  const rows = keys.map((k) => [k.key_id, k.team, k.user, k.created, k.revoked ?? "-"]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  return [header, ...rows].map(line).join("\n") + "\n";
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(USAGE + "\n");
    return;
  }
  const [command, ...rest] = positionals;
  const { remote = false, "persist-to": persistTo, ...commandOptions } = values;
  const target = targetFrom(remote, persistTo);

  switch (command) {
    case "create": {
      onlyOptions(commandOptions, ["team", "user"]);
      const { team, user } = commandOptions;
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest.join(" ")}`);
      if (team === undefined || user === undefined) throw new UsageError("create needs --team and --user");
      if (!isValidId(team)) throw new UsageError(`invalid team id: ${JSON.stringify(team)}`);
      if (!isValidId(user)) throw new UsageError(`invalid user id: ${JSON.stringify(user)}`);
      const masterKey = masterKeyFor(target);
      const key = await createKey(target, masterKey, team, user);
      process.stdout.write(JSON.stringify({ key_id: key.key_id, secret: key.secret, team: key.team, user: key.user }) + "\n");
      return;
    }
    case "list": {
      onlyOptions(commandOptions, ["json"]);
      if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest.join(" ")}`);
      const keys = await listKeys(target);
      process.stdout.write(commandOptions.json ? keys.map((k) => JSON.stringify(k) + "\n").join("") : formatTable(keys));
      return;
    }
    case "revoke": {
      onlyOptions(commandOptions, []);
      const [keyId, ...extra] = rest;
      if (keyId === undefined || extra.length > 0) throw new UsageError("revoke needs exactly one key id");
      if (!isValidKeyId(keyId)) throw new UsageError(`invalid key id: ${JSON.stringify(keyId)}`);
      const key = await revokeKey(target, keyId);
      if (key === null) throw new Error(`no key with id ${keyId}`);
      process.stdout.write(JSON.stringify(key) + "\n");
      return;
    }
    case undefined:
      throw new UsageError("missing command");
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.exitCode = reportError(error, "see: npm run keys -- --help");
});
