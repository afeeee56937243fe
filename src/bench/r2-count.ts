// Counts a request's R2 reads and the bytes they return for `npm run bench`: the bench entry
// (src/bench-entry.ts) wraps the real binding and reports them in `X-Bench-R2`. A read's bytes
// are its range's length, or the object's size when it is read whole. The time waited on reads is
// workerd's clock, which moves only at I/O, so a wait also holds the CPU work just before it.

export interface R2Count {
  reads: number;
  bytes: number;
  /** Milliseconds during which at least one read was in flight (parallel reads count once). */
  waitMs: number;
  /** Reads in flight now, and when the current stretch of waiting began. */
  inFlight: number;
  waitStarted: number;
}

export function r2Count(): R2Count {
  return { reads: 0, bytes: 0, waitMs: 0, inFlight: 0, waitStarted: 0 };
}

export function countedBucket(bucket: R2Bucket, count: R2Count): R2Bucket {
  return new Proxy(bucket, {
    get(target, property) {
      if (property === "get") {
        return async (key: string, options?: R2GetOptions) => {
          if (count.inFlight++ === 0) count.waitStarted = performance.now();
          let object: R2ObjectBody | R2Object | null;
          try {
            object = await target.get(key, options);
          } finally {
            if (--count.inFlight === 0) count.waitMs += performance.now() - count.waitStarted;
          }
          count.reads++;
          if (object && "body" in object) {
            const range = object.range as { offset?: number; length?: number } | undefined;
            count.bytes += range?.length ?? object.size - (range?.offset ?? 0);
          }
          return object;
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
