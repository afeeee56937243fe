// Memory of the local workerd process, read from Linux /proc: finds the `workerd` that a given
// `wrangler dev` started (walking its descendants) and samples its resident set size.
import { readdirSync, readFileSync } from "node:fs";

function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (text !== "") children.push(...text.split(/\s+/).map(Number));
    } catch {
      // the task ended while we looked
    }
  }
  return children;
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** PIDs of every `workerd` below `rootPid` (breadth first). */
export function workerdDescendants(rootPid: number): number[] {
  const found: number[] = [];
  const queue = [rootPid];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    if (pid !== rootPid && commandName(pid) === "workerd") found.push(pid);
    queue.push(...childrenOf(pid));
  }
  return found;
}

/** The process's command line, arguments joined by spaces; "" when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** VmRSS of `pid` in bytes, or null when the process is gone. */
export function residentBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export interface RssSummary {
  baseline: number;
  peak: number;
  growth: number;
  samples: number;
}

/** Samples `pid`'s RSS every `intervalMs` from now until `stop()`; the baseline is the first. */
export function sampleRss(pid: number, intervalMs = 50): { stop(): RssSummary } {
  const baseline = residentBytes(pid);
  if (baseline === null) throw new Error(`workerd (pid ${pid}) is not running`);
  let peak = baseline;
  let samples = 1;
  const timer = setInterval(() => {
    const rss = residentBytes(pid);
    if (rss === null) return;
    samples++;
    if (rss > peak) peak = rss;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const last = residentBytes(pid);
      if (last !== null && last > peak) peak = last;
      return { baseline, peak, growth: peak - baseline, samples };
    },
  };
}
