// Runs `pubset` in-process (runCli) with captured streams, for the CLI tests.
import { PassThrough, Readable } from "node:stream";
import { runCli } from "../../src/cli/run.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function collector(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

/** A stdin that says it is a terminal and answers with `typed` (e.g. "n\n"). */
export function terminalInput(typed: string): NodeJS.ReadableStream & { isTTY: boolean } {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  input.end(typed);
  return input;
}

/** `env` replaces the process environment entirely, so the caller's PUBSET_* never leak in. */
export async function runInProcess(args: string[], env: NodeJS.ProcessEnv, stdin: NodeJS.ReadableStream = Readable.from([])): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(args, { stdout: stdout.stream, stderr: stderr.stream, stdin, env });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
