// `pubset login`: saves the server URL and key to the config file (0600). On a terminal it asks
// for what the flags did not give; otherwise --key-id and --secret are required.
import { DEFAULT_URL } from "../../client/index.ts";
import { stringOption, positionals } from "../args.ts";
import { UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { configPath, readStoredConfig, writeStoredConfig } from "../config.ts";
import { ask, askHidden, type TerminalInput } from "../prompt.ts";

export const login: Command = {
  name: "login",
  synopsis: "login [--url U] [--key-id K] [--secret S]",
  summary: "save the server URL and your key in the config file (mode 0600)",
  example: "pubset login --url http://127.0.0.1:8787 --key-id pk_… --secret …",
  details: [
    "--url U       server (default: the saved one, else http://127.0.0.1:8787)",
    "--key-id K    key id, e.g. from `pubset keys create --team T --user U`",
    "--secret S    its secret; prompted without echo on a terminal",
    "without a terminal on stdin, --key-id and --secret are required (else PUBSET_KEY_ID, PUBSET_SECRET, PUBSET_URL)",
  ],
  options: { "key-id": { type: "string" }, secret: { type: "string" } },
  async run(context, parsed) {
    positionals(parsed, [], 0);
    const { env, stdin, stderr } = context.io;
    const file = configPath(env);
    const saved = readStoredConfig(file, (message) => context.note(`pubset: warning: ${message}`), context.self);
    let url = stringOption(parsed.values, "url");
    let keyId = stringOption(parsed.values, "key-id");
    let secret = stringOption(parsed.values, "secret");
    if (stdin.isTTY === true) {
      const defaultUrl = saved.url ?? DEFAULT_URL;
      url ??= (await ask(stdin, stderr, `Server URL [${defaultUrl}]: `)) || defaultUrl;
      keyId ??= (await ask(stdin, stderr, `Key id${saved.key_id ? ` [${saved.key_id}]` : ""}: `)) || saved.key_id;
      secret ??= await askHidden(stdin as TerminalInput, stderr, "Secret: ");
    }
    // Without a terminal (CI, scripts), the environment may carry what the flags did not.
    url ??= nonEmpty(env.PUBSET_URL) ?? saved.url ?? DEFAULT_URL;
    keyId ??= nonEmpty(env.PUBSET_KEY_ID);
    secret ??= nonEmpty(env.PUBSET_SECRET);
    if (!keyId || !secret) throw new UsageError("login needs --key-id and --secret (or PUBSET_KEY_ID and PUBSET_SECRET) when stdin is not a terminal");
    try {
      new URL(url);
    } catch {
      throw new UsageError(`not a URL: ${url}`);
    }
    writeStoredConfig(file, { url, key_id: keyId, secret });
    context.print({ file, url, key_id: keyId }, () => `saved ${file} (${url}, key ${keyId})\n`);
  },
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
