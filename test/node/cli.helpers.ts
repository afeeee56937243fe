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

/** `env` replaces the process environment entirely, so the caller's PUBSET_* never leak in. */
export async function runInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCli(args, { stdout: stdout.stream, stderr: stderr.stream, stdin: Readable.from([]), env });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
