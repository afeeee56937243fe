// The feed's long-poll (docs/changes.md "Waiting"): with nothing after the cursor, the request
// asks D1 again at growing intervals until an event exists or `wait` runs out. An idle wait of
// 25 s costs 16 indexed reads (the first included) that find no row; an event is seen at most
// 2 s after its commit.
import type { ChangeEvent } from "./store.ts";

/** First pause, and the longest one, between two reads of an idle wait. */
export const FIRST_PAUSE_MS = 250;
export const LONGEST_PAUSE_MS = 2000;

/**
 * Calls `read` until it returns an event or `waitMs` has passed since the call (the last read
 * lands on the deadline, so an event committed just before it is still answered).
 */
export async function waitForEvents(
  read: () => Promise<ChangeEvent[]>,
  waitMs: number,
  signal?: AbortSignal,
): Promise<ChangeEvent[]> {
  const deadline = Date.now() + waitMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return [];
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    const events = await read();
    if (events.length > 0) return events;
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}
