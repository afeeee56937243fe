#!/usr/bin/env node
// The `pubset` command (package.json "bin"; `npm run cli -- …`). Node ≥ 22.18 runs this
// TypeScript directly; the project's own Node 24 does inside npm scripts and npx.
import { onInterrupt, WriteTracker } from "./interrupt.ts";
import { runCli } from "./run.ts";

const controller = new AbortController();
const tracker = new WriteTracker();
const release = onInterrupt(controller, tracker, process.stderr);

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, signal: controller.signal, tracker }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`pubset: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 3;
  },
).finally(release);
