// Counts a request's R2 reads and the bytes they return for `npm run bench`: the bench entry
// (src/bench-entry.ts) wraps the real binding and reports them in `X-Bench-R2`. A read's bytes
// are its range's length, or the object's size when it is read whole.

export interface R2Count {
  reads: number;
  bytes: number;
}

export function countedBucket(bucket: R2Bucket, count: R2Count): R2Bucket {
  return new Proxy(bucket, {
    get(target, property) {
      if (property === "get") {
        return async (key: string, options?: R2GetOptions) => {
          const object = await target.get(key, options);
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
