// What `npm start` shows of wrangler's output: everything goes to a log file, and the screen
// gets it without what a pubset user does not act on — the bindings table (printed on every
// reload), the note that cron triggers do not fire locally, reconnect chatter — so the demo key
// and the next commands stay on the first screen. Errors and request logs pass through.
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Readable, Writable } from "node:stream";

// SGR colour codes, which wrangler prints even into a pipe.
const ANSI = /\x1b\[[0-9;]*m/g;

/** A stateful line filter: true for a line to show. */
export function devLineFilter(): (line: string) => boolean {
  let inCronNote = false;
  let lastBlank = true;
  return (raw) => {
    const line = raw.replace(ANSI, "").trimEnd();
    if (inCronNote) {
      if (line.includes("cron-triggers")) inCronNote = false;
      return false;
    }
    if (/Scheduled Workers are not automatically triggered/.test(line)) {
      inCronNote = true;
      return false;
    }
    if (/^Your Worker has access to the following bindings:/.test(line)) return false;
    if (/^Binding\s+Resource\s+Mode$/.test(line) || /^env\.\S+/.test(line)) return false;
    if (/^⎔ Connection status updated/.test(line)) return false;
    const blank = line === "";
    if (blank && lastBlank) return false;
    lastBlank = blank;
    return true;
  };
}

/**
 * Copies `from` line by line into `log` (whole) and `to` (filtered); calls `onLine` with every
 * line, so the caller can react to wrangler's "Ready on".
 */
export function relayLines(from: Readable, to: Writable, log: Writable, show: (line: string) => boolean, onLine: (line: string) => void): void {
  let pending = "";
  from.setEncoding("utf8");
  const emit = (line: string) => {
    log.write(`${line}\n`);
    if (show(line)) to.write(`${line}\n`);
    onLine(line.replace(ANSI, ""));
  };
  from.on("data", (chunk: string) => {
    pending += chunk;
    let at: number;
    while ((at = pending.indexOf("\n")) !== -1) {
      emit(pending.slice(0, at));
      pending = pending.slice(at + 1);
    }
  });
  from.on("end", () => {
    if (pending !== "") emit(pending);
  });
}

/** An append-mode log file, its folder made. */
export function logFile(path: string): Writable {
  mkdirSync(dirname(path), { recursive: true });
  return createWriteStream(path, { flags: "a" });
}
