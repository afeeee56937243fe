// `pubset login`: saves the server URL and key to the config file (0600), once one signed
// request shows the server knows the key and the secret is its own. On a terminal it asks for
// what the flags did not give; otherwise --key-id and --secret are required.
import { DEFAULT_URL, PubsetClient, PubsetError, PubsetNetworkError } from "../../client/index.ts";
import { stringOption, positionals } from "../args.ts";
import { EXIT_API, EXIT_OTHER, UsageError } from "../cli-error.ts";
import type { Command } from "../command.ts";
import { configPath, readStoredConfig, writeStoredConfig } from "../config.ts";
import { ask, askHidden, type TerminalInput } from "../prompt.ts";

export const login: Command = {
  name: "login",
  synopsis: "login [--url U] [--key-id K] [--secret S]",
  summary: "check your key with the server, then save it and the URL in the config file (mode 0600)",
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
    const problem = await checkKey(url, keyId, secret, context.signal);
    if (problem !== null) {
      context.note(`pubset: nothing saved: ${problem.message}`);
      if (context.json) context.io.stdout.write(`${JSON.stringify(problem.document)}\n`);
      return problem.exitCode;
    }
    writeStoredConfig(file, { url, key_id: keyId, secret });
    context.print({ file, url, key_id: keyId }, () => `checked key ${keyId} with ${url}; saved ${file}\n`);
  },
};

interface LoginProblem {
  message: string;
  document: Record<string, unknown>;
  exitCode: number;
}

/** One signed request (the first page of the key's own datasets): null when the server
 * verified it, else what is wrong in words the user can act on. */
async function checkKey(url: string, keyId: string, secret: string, signal: AbortSignal | undefined): Promise<LoginProblem | null> {
  // One retry only: a server that is down should not keep a login waiting through backoff.
  const client = new PubsetClient({ url, key: { keyId, secret }, retry: { retries: 1 } });
  try {
    await client.list({}, { signal }).next();
    return null;
  } catch (error: unknown) {
    if (error instanceof PubsetError) {
      const words: Record<string, string> = {
        unknown_key: `${url} does not know key id ${keyId} (a typo, a revoked key, or a key of another server?)`,
        signature_invalid: `that secret is not the one for key ${keyId}: ${url} could not verify the signature`,
        signature_expired: `${url} finds the signature's time too far from its own: check this computer's clock`,
      };
      const message = words[error.code] ?? `${url} answered ${error.code} (HTTP ${error.status}): ${error.detail}`;
      return { message, document: error.problem, exitCode: EXIT_API };
    }
    if (error instanceof PubsetNetworkError) {
      const message = `no server answered at ${new URL(url).origin} (${error.message}); is it running? Give another with --url URL`;
      return { message, document: { code: "network_error", title: "No answer", detail: message, exit_code: EXIT_OTHER }, exitCode: EXIT_OTHER };
    }
    throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
