// Exit codes of `pubset` (documented in `pubset --help` and docs/cli.md) and the one place an
// error becomes a message on stderr and a code.
import { PubsetError, PubsetNetworkError } from "../client/index.ts";
import { EXIT_INTERRUPTED } from "./interrupt.ts";

export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
export const EXIT_API = 2;
export const EXIT_OTHER = 3;

/** Bad command line: wrong flags, missing arguments, missing configuration. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const STANDARD_MEMBERS = new Set(["type", "title", "status", "detail", "code"]);

/** 401s a new `login` cures: the key is not the server's, or the secret is not the key's. */
export const KEY_PROBLEMS = new Set(["unknown_key", "signature_invalid"]);

export function keyHint(code: string, self: string): string {
  const what = code === "unknown_key" ? "this server does not know that key id" : "the secret does not match the key id";
  return `${what}: run \`${self} login\` with the key this server gave you (or set PUBSET_KEY_ID and PUBSET_SECRET)`;
}

/** Names the server tried and how to name another, for a request that got no answer. */
export function unreachableHint(url: string | undefined, self: string): string {
  let server = "the server";
  try {
    if (url !== undefined) server = new URL(url).origin;
  } catch {
    // not a URL: keep the generic word
  }
  return `no server answered at ${server}: is it running (\`npm start\` in a checkout)? Choose another with --url URL, PUBSET_URL or \`${self} login\``;
}

function extensionText(error: PubsetError): string {
  const extras = Object.entries(error.problem).filter(([key]) => !STANDARD_MEMBERS.has(key));
  return extras.length === 0 ? "" : ` (${extras.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")})`;
}

/** The JSON document a failure prints on stdout with --json: the API's problem as it came, or
 * one of ours shaped alike (`code` to switch on, `detail` to show, the exit code). */
function failureDocument(error: unknown, exitCode: number): Record<string, unknown> {
  if (error instanceof PubsetError) return error.problem;
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) return { code: "usage_error", title: "Usage error", detail, exit_code: exitCode };
  if (error instanceof PubsetNetworkError) return { code: "network_error", title: "No answer", detail, attempts: error.attempts, exit_code: exitCode };
  return { code: "error", title: "Error", detail, exit_code: exitCode };
}

/**
 * Writes the error to stderr (and, with --json, a JSON document to stdout, so a script always
 * reads one JSON document) and returns the exit code.
 */
export function reportFailure(error: unknown, json: boolean, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream, self = "pubset"): number {
  let code: number;
  if (error instanceof UsageError) {
    stderr.write(`pubset: ${error.message}\nRun \`${self} --help\` for usage.\n`);
    code = EXIT_USAGE;
  } else if (error instanceof PubsetError) {
    stderr.write(`pubset: ${error.code} (HTTP ${error.status}): ${error.detail}${extensionText(error)}\n`);
    if (KEY_PROBLEMS.has(error.code)) stderr.write(`${keyHint(error.code, self)}\n`);
    code = EXIT_API;
  } else if (error instanceof PubsetNetworkError) {
    stderr.write(`pubset: network error after ${error.attempts} attempt(s): ${error.message}\n`);
    stderr.write(`${unreachableHint(error.url, self)}\n`);
    code = EXIT_OTHER;
  } else {
    stderr.write(`pubset: ${error instanceof Error ? error.message : String(error)}\n`);
    code = EXIT_OTHER;
  }
  if (json) stdout.write(`${JSON.stringify(failureDocument(error, code))}\n`);
  return code;
}

/** After an interrupt (interrupt.ts has told stderr what became of the write): the exit code,
 * and with --json the document a script reads. */
export function reportInterrupted(reason: unknown, json: boolean, stdout: NodeJS.WritableStream): number {
  const detail = reason instanceof Error ? reason.message : "interrupted";
  if (json) stdout.write(`${JSON.stringify({ code: "interrupted", title: "Interrupted", detail, exit_code: EXIT_INTERRUPTED })}\n`);
  return EXIT_INTERRUPTED;
}
