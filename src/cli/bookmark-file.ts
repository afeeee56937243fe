// The CLI's memory of D1 bookmarks between invocations (docs/edge-and-caching.md "Replicas"): the newest
// X-D1-Bookmark seen per server, beside the config file, so `pubset append` followed by
// `pubset get` reads the appended version even from a lagging read replica. A bookmark is kept
// for a day: replicas lag by seconds, and D1 refuses bookmarks older than 30 days.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { newerBookmark } from "../client/transport.ts";
import { configPath } from "./config.ts";

export const BOOKMARK_MAX_AGE_MS = 24 * 60 * 60 * 1000;

interface Stored {
  bookmark: string;
  /** ms since the epoch */
  saved: number;
}

export function bookmarkFile(env: NodeJS.ProcessEnv): string {
  return join(dirname(configPath(env)), "bookmarks.json");
}

function readAll(file: string): Record<string, Stored> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return {};
    const out: Record<string, Stored> = {};
    for (const [url, value] of Object.entries(parsed)) {
      const entry = value as Partial<Stored> | null;
      if (typeof entry?.bookmark === "string" && typeof entry.saved === "number") out[url] = { bookmark: entry.bookmark, saved: entry.saved };
    }
    return out;
  } catch {
    return {};
  }
}

export function readBookmark(file: string, url: string, now: number = Date.now()): string | undefined {
  const entry = readAll(file)[url];
  return entry && now - entry.saved < BOOKMARK_MAX_AGE_MS ? entry.bookmark : undefined;
}

/** Keeps the newer of the stored and the given bookmark; never fails the command. */
export function saveBookmark(file: string, url: string, bookmark: string | undefined, now: number = Date.now()): void {
  if (bookmark === undefined) return;
  try {
    const all = readAll(file);
    const current = readBookmark(file, url, now);
    if (newerBookmark(current, bookmark) === current) return;
    all[url] = { bookmark, saved: now };
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // A read-only home directory costs read-your-writes across invocations, not the command.
  }
}
