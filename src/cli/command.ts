// The shape of one `pubset` subcommand: its help lines and what it does — either with parsed
// options, or with its arguments passed on untouched (`keys`).
import type { ParseArgsOptionsConfig } from "node:util";
import type { ParsedCommand } from "./args.ts";
import type { CommandContext } from "./context.ts";

interface CommandHelp {
  name: string;
  /** e.g. `get ID [VERSION]` */
  synopsis: string;
  summary: string;
  /** Lines describing the options, for `pubset <command> --help`. */
  details?: string[];
  /** One command line that works as typed (ids as <id>), shown by `--help`. */
  example: string;
}

export interface OptionsCommand extends CommandHelp {
  options: ParseArgsOptionsConfig;
  /** Resolves with an exit code, or nothing for success. */
  run(context: CommandContext, parsed: ParsedCommand): Promise<number | void>;
}

export interface PassthroughCommand extends CommandHelp {
  passthrough(args: string[]): Promise<number>;
}

export type Command = OptionsCommand | PassthroughCommand;
