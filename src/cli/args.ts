// Command-line parsing for `pubset`: the command name, the options every command takes
// (--json, --url, --help) and typed access to the rest, with bad input as a UsageError.
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "./cli-error.ts";

export const GLOBAL_OPTIONS = {
  json: { type: "boolean" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsOptionsConfig;

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface ParsedCommand {
  values: OptionValues;
  positionals: string[];
}

/** Splits off the command name: the first argument that is neither a flag nor --url's value. */
export function splitCommand(argv: string[]): { command: string | undefined; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--url") {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return { command: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { command: undefined, rest: argv };
}

export function parseCommand(argv: string[], options: ParseArgsOptionsConfig): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error: unknown) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

export function integerOption(values: OptionValues, name: string, min: number): number | undefined {
  const text = stringOption(values, name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** Exactly `min`..`max` positionals, named for the error message. */
export function positionals(parsed: ParsedCommand, names: string[], min: number): string[] {
  const given = parsed.positionals;
  if (given.length < min) throw new UsageError(`missing ${names.slice(given.length, min).join(" ")}`);
  if (given.length > names.length) throw new UsageError(`unexpected argument ${JSON.stringify(given[names.length])}`);
  return given;
}
