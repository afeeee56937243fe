#!/usr/bin/env node
// The `pubset` command (package.json "bin"). Installed from the npm package it runs the build,
// dist/cli.js. In a checkout, on a Node that strips types (the project's Node 24, which npx and
// npm scripts use), it runs the TypeScript source instead, so it is never a stale build.
import { existsSync } from "node:fs";

const source = new URL("./main.ts", import.meta.url);
if (existsSync(source) && process.features.typescript) {
  await import(source.href);
} else {
  try {
    await import("../../dist/cli.js");
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND" || !existsSync(source)) throw error;
    process.stderr.write("pubset: this checkout has no build (dist/cli.js) and this Node cannot run TypeScript: run `npm run build`, or use Node ≥ 22.18\n");
    process.exitCode = 3;
  }
}
