// `pubset --help` and `pubset <command> --help`: the commands, configuration and exit codes.
import type { Command } from "./command.ts";
import { asInvoked } from "./invocation.ts";

export const EXIT_CODES = `exit codes:
  0    ok
  1    usage error (bad flags or arguments, missing file, missing config)
  2    API error: the server answered with a problem; its code and detail go to stderr
  3    network or other error (server unreachable after retries, I/O error)
  130  interrupted (Ctrl-C); a write says whether it may have landed and how to check`;

export function mainUsage(commands: Command[], self = "pubset"): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: ${self} <command> [options] [--json] [--url URL]

commands:
${lines.join("\n")}

examples:
  ${self} login
  ${self} create cities.csv --name Cities --public
  ${self} download <id> -o cities.csv

options for every command:
  --json       print one JSON document on stdout instead of text
  --url URL    server (overrides PUBSET_URL and the config file)
  -h, --help   help for a command: ${self} <command> --help
  --version    print pubset's version

configuration: env PUBSET_URL, PUBSET_KEY_ID, PUBSET_SECRET win over the config file
($PUBSET_CONFIG, else ~/.config/pubset/config.json, written by \`${self} login\`); the default
URL is http://127.0.0.1:8787. Without a key, requests are anonymous (public data only).
Progress bars go to stderr, only when it is a terminal.

${EXIT_CODES}
`;
}

export function commandUsage(command: Command, self = "pubset"): string {
  const details = command.details?.map((line) => `  ${line}`).join("\n");
  return `usage: ${self} ${command.synopsis}

${command.summary}
${details ? `\n${details}\n` : ""}
example:
  ${asInvoked(self, command.example)}

${EXIT_CODES}
`;
}
