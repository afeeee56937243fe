// `pubset --version`: the package's version. The package build (scripts/build-package.ts)
// writes it into dist/cli.js; run from source, it is read from package.json beside src/.
import { readFileSync } from "node:fs";

declare const PUBSET_VERSION: string | undefined;

export function cliVersion(): string {
  if (typeof PUBSET_VERSION === "string") return PUBSET_VERSION;
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}
