// The time a request spent waiting on one binding's I/O, for the bench entry's counters
// (d1-count.ts, r2-count.ts): measured on workerd's clock, which moves only at I/O, so a wait also
// holds the CPU work just before it; parallel waits count once.

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
