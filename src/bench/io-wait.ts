// The time a request spent waiting on one binding's I/O, for the bench entry's counters
// (d1-count.ts, r2-count.ts, limiter-count.ts): on workerd's clock, which under `wrangler dev`
// moves with computation too, in whole milliseconds; there a wait holds the simulated service's
// own work, on the Worker's thread (docs/performance.md "Queries"). Parallel waits count once.

export interface IoWait {
  /** Milliseconds during which at least one call was in flight. */
  waitMs: number;
  /** Calls in flight now, and when the current stretch of waiting began. */
  inFlight: number;
  waitStarted: number;
}

/** `io` with its wait added to `count.waitMs`. */
export function waited<T>(count: IoWait, io: () => Promise<T>): Promise<T> {
  if (count.inFlight++ === 0) count.waitStarted = performance.now();
  return io().finally(() => {
    if (--count.inFlight === 0) count.waitMs += performance.now() - count.waitStarted;
  });
}
