// Stopping a spawned tool for good: `npm start` runs node → wrangler → workerd, so tests start
// it as a process-group leader (spawn `detached`) and signal the whole group.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True while any process of the group led by `pid` is alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** SIGTERM to the group, then SIGKILL to whatever is left after `graceMs`; resolves when all are gone. */
export async function killGroup(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // The group is already gone.
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
  if (!groupAlive(pid)) return;
  signal("SIGKILL");
  while (groupAlive(pid)) await sleep(50);
}
