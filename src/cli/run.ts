// Runs one `pubset` invocation against the given streams and environment and resolves with its
// exit code; main.ts binds it to the process, tests call it directly.
import { editDistance, splitCommand, parseCommand, flag } from "./args.ts";
import { EXIT_OK, reportFailure, reportInterrupted, UsageError } from "./cli-error.ts";
import type { Command } from "./command.ts";
import { download } from "./commands/download.ts";
import { exportRows } from "./commands/export.ts";
import { changes, webhooks } from "./commands/changes.ts";
import { keys } from "./commands/keys.ts";
import { login } from "./commands/login.ts";
import { get, ls, rows, schema, versions } from "./commands/read.ts";
import { append, create, rm, update } from "./commands/write.ts";
import { CommandContext, type CliIo } from "./context.ts";
import { invokedAs } from "./invocation.ts";
import { commandUsage, mainUsage } from "./usage.ts";
import { cliVersion } from "./version.ts";

export const COMMANDS: Command[] = [ls, get, versions, schema, rows, exportRows, download, create, append, update, rm, changes, webhooks, login, keys];

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes("--json");
  const self = invokedAs(io.env);
  const { command: name, rest } = splitCommand(argv);
  if (name === undefined && (argv.includes("--version") || argv.includes("-V"))) {
    io.stdout.write(json ? `${JSON.stringify({ version: cliVersion() })}\n` : `pubset ${cliVersion()}\n`);
    return EXIT_OK;
  }
  if (name === undefined || name === "help") {
    const asked = name === "help" || argv.includes("--help") || argv.includes("-h");
    if (asked) {
      io.stdout.write(mainUsage(COMMANDS, self));
      return EXIT_OK;
    }
    io.stderr.write(mainUsage(COMMANDS, self));
    return reportFailure(new UsageError("no command given"), json, io.stdout, io.stderr, self);
  }
  const command = COMMANDS.find((c) => c.name === name);
  try {
    if (command === undefined) {
      const near = COMMANDS.filter((c) => editDistance(c.name, name) <= 2).map((c) => c.name);
      throw new UsageError(`unknown command ${JSON.stringify(name)}${near.length > 0 ? ` (did you mean ${near.join(" or ")}?)` : ""}`);
    }
    if ("passthrough" in command) {
      const args = argv.slice(argv.indexOf(name) + 1);
      if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
        io.stdout.write(commandUsage(command, self));
        return EXIT_OK;
      }
      return await command.passthrough(args);
    }
    const parsed = parseCommand(rest, command.options);
    if (flag(parsed.values, "help")) {
      io.stdout.write(commandUsage(command, self));
      return EXIT_OK;
    }
    const context = new CommandContext(io, parsed.values, argv);
    try {
      return (await command.run(context, parsed)) ?? EXIT_OK;
    } finally {
      context.saveBookmarks();
    }
  } catch (error: unknown) {
    if (io.signal?.aborted) return reportInterrupted(io.signal.reason, json, io.stdout);
    return reportFailure(error, json, io.stdout, io.stderr, self);
  }
}
