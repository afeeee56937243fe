// Exit codes of `pubset` (documented in `pubset --help` and the README) and the one place an
// error becomes a message on stderr and a code.
import { PubsetError, PubsetNetworkError } from "../client/index.ts";

export const EXIT_OK = 0;
export const EXIT_USAGE = 1;
export const EXIT_API = 2;
export const EXIT_OTHER = 3;

/** Bad command line: wrong flags, missing arguments, missing configuration. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

const STANDARD_MEMBERS = new Set(["type", "title", "status", "detail", "code"]);

function extensionText(error: PubsetError): string {
  const extras = Object.entries(error.problem).filter(([key]) => !STANDARD_MEMBERS.has(key));
  return extras.length === 0 ? "" : ` (${extras.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")})`;
}

/**
 * Writes the error to stderr (and, with --json, the problem document to stdout, so a script
 * still reads one JSON document) and returns the exit code.
 */
export function reportFailure(error: unknown, json: boolean, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): number {
  if (error instanceof UsageError) {
    stderr.write(`pubset: ${error.message}\nRun \`pubset --help\` for usage.\n`);
    return EXIT_USAGE;
  }
  if (error instanceof PubsetError) {
    stderr.write(`pubset: ${error.code} (HTTP ${error.status}): ${error.detail}${extensionText(error)}\n`);
    if (json) stdout.write(`${JSON.stringify(error.problem)}\n`);
    return EXIT_API;
  }
  if (error instanceof PubsetNetworkError) {
    stderr.write(`pubset: network error after ${error.attempts} attempt(s): ${error.message}\n`);
    return EXIT_OTHER;
  }
  stderr.write(`pubset: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_OTHER;
}
