// The CLI's memory of D1 bookmarks between invocations (SPEC B6 "Replicas"): the newest
// X-D1-Bookmark seen per server, beside the config file, so `pubset append` followed by
// `pubset get` reads the appended version even from a lagging read replica.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { newerBookmark } from "../client/transport.ts";
import { configPath } from "./config.ts";

export function bookmarkFile(env: NodeJS.ProcessEnv): string {
  return join(dirname(configPath(env)), "bookmarks.json");
}

function readAll(file: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return {};
  }
}

export function readBookmark(file: string, url: string): string | undefined {
  return readAll(file)[url];
}

/** Keeps the newer of the stored and the given bookmark; never fails the command. */
export function saveBookmark(file: string, url: string, bookmark: string | undefined): void {
  if (bookmark === undefined) return;
  try {
    const all = readAll(file);
    const newest = newerBookmark(all[url], bookmark);
    if (newest === all[url]) return;
    all[url] = bookmark;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // A read-only home directory costs read-your-writes across invocations, not the command.
  }
}
