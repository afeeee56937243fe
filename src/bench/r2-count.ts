// Counts a request's R2 reads and the bytes they return for `npm run bench`: the bench entry
// (src/bench-entry.ts) wraps the real binding and reports them in `X-Bench-R2`. A read's bytes
// are its range's length, or the object's size when it is read whole. The time waited on reads
// (io-wait.ts) runs from the read until its body is in (a body read as a stream counts only until
// it starts).
import { type IoWait, waited } from "./io-wait.ts";

export interface R2Count extends IoWait {
  reads: number;
  bytes: number;
}

export function r2Count(): R2Count {
  return { reads: 0, bytes: 0, waitMs: 0, inFlight: 0, waitStarted: 0 };
}

/** `object` with the wait for its whole body (arrayBuffer, text, json, bytes) counted too; a streamed `body` is not. */
function bodyWaited(object: R2ObjectBody, count: R2Count): R2ObjectBody {
  return new Proxy(object, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (property === "arrayBuffer" || property === "text" || property === "json" || property === "bytes") return (...args: unknown[]) => waited(count, () => method(...args) as Promise<unknown>);
      return method;
    },
  });
}

export function countedBucket(bucket: R2Bucket, count: R2Count): R2Bucket {
  return new Proxy(bucket, {
    get(target, property) {
      if (property === "get") {
        return async (key: string, options?: R2GetOptions) => {
          const object = await waited(count, () => target.get(key, options));
          count.reads++;
          if (object && "body" in object) {
            const range = object.range as { offset?: number; length?: number } | undefined;
            count.bytes += range?.length ?? object.size - (range?.offset ?? 0);
            return bodyWaited(object, count);
          }
          return object;
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
