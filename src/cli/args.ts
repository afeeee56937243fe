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

/** Levenshtein distance, for "did you mean" on a mistyped option or command. */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next.push(Math.min((row[j] ?? 0) + 1, (next[j - 1] ?? 0) + 1, (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** Options whose value may begin with `-` by design: `--order -population` sorts descending. */
const DASH_VALUE_OPTIONS = new Set(["--order"]);

/** `--order -name` as `--order=-name`, so parseArgs does not read `-name` as short options. */
function joinDashValues(argv: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (DASH_VALUE_OPTIONS.has(arg) && next !== undefined && next.startsWith("-") && !next.startsWith("--")) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/**
 * Our own words for what parseArgs would refuse (its messages quote unevenly and talk about
 * "positional arguments"): the command line is walked once leniently, then checked here.
 */
function checkTokens(argv: string[], options: ParseArgsOptionsConfig): void {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const known = Object.keys(options).map((name) => `--${name}`);
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const spec = options[token.name];
    if (spec === undefined) {
      const near = known.filter((name) => editDistance(name, token.rawName) <= 2);
      const hint = near.length > 0 ? ` (did you mean ${near.join(" or ")}?)` : "";
      throw new UsageError(`unknown option ${token.rawName}${hint}`);
    }
    if (spec.type === "string" && token.value === undefined) throw new UsageError(`${token.rawName} needs a value, e.g. ${token.rawName} VALUE`);
    if (spec.type === "boolean" && token.inlineValue === true) throw new UsageError(`${token.rawName} takes no value`);
    if (spec.type === "string" && token.inlineValue !== true && token.value?.startsWith("-") && token.value !== "-") {
      throw new UsageError(`${token.rawName} needs a value, not the option ${token.value}; write ${token.rawName}=${token.value} if that is the value`);
    }
  }
}

export function parseCommand(argv: string[], options: ParseArgsOptionsConfig): ParsedCommand {
  const all = { ...GLOBAL_OPTIONS, ...options };
  argv = joinDashValues(argv);
  checkTokens(argv, all);
  try {
    const { values, positionals } = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch {
    throw new UsageError(`cannot read the options ${JSON.stringify(argv.filter((arg) => arg.startsWith("-")).join(" "))}`);
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
