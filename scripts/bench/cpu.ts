// CPU time of a local process, read from Linux /proc: what a piece of work cost the workerd that
// ran it, however long other work on the machine kept it waiting (docs/performance.md, the twin).
import { readFileSync } from "node:fs";

/** /proc reports utime and stime in USER_HZ ticks, 100 a second on Linux whatever the kernel's HZ. */
const TICKS_PER_SECOND = 100;

/**
 * `pid`'s user plus system CPU time in seconds, all its threads (the isolate's, the I/O and
 * garbage collector threads), those that ended included; to 10 ms (one tick) each reading.
 */
export function cpuSeconds(pid: number): number {
  return statCpu(`/proc/${pid}/stat`);
}

function statCpu(path: string): number {
  const stat = readFileSync(path, "utf8");
  // proc(5): the command name is in parentheses and may hold spaces; the fields after it start
  // with field 3 (state), so utime (field 14) and stime (field 15) are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable ${path}`);
  return (utime + stime) / TICKS_PER_SECOND;
}

/** `work()`'s result with the CPU seconds `pid` spent and the wall seconds that passed while it ran. */
export async function withCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpu: number; wall: number }> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const result = await work();
  const wall = (performance.now() - started) / 1000;
  return { result, cpu: cpuSeconds(pid) - cpuBefore, wall };
}
