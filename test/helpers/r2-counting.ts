// The real local R2 binding, recording every read the worker makes: which object, which range,
// and how many bytes came back (the bytes are counted as the body is read). Nothing is faked.
import { wrapBinding } from "./storage.ts";

export interface R2Read {
  key: string;
  offset: number | null;
  length: number | null;
}

export function countingR2(real: R2Bucket): { bucket: R2Bucket; reads: R2Read[]; bytes: () => number } {
  const reads: R2Read[] = [];
  let bytes = 0;
  const counted = (object: R2ObjectBody): R2ObjectBody => {
    const body = object.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Proxy(object, {
      get(target, property) {
        if (property === "body") return body;
        if (property === "arrayBuffer") return () => new Response(body).arrayBuffer();
        if (property === "text") return () => new Response(body).text();
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  const bucket = wrapBinding(real, {
    get: async (key: string, options?: R2GetOptions) => {
      const range = options?.range as { offset?: number; length?: number } | undefined;
      reads.push({ key, offset: range?.offset ?? null, length: range?.length ?? null });
      const object = await real.get(key, options);
      return object && "body" in object ? counted(object) : object;
    },
    head: async (key: string) => {
      reads.push({ key, offset: null, length: 0 });
      return real.head(key);
    },
  });
  return { bucket, reads, bytes: () => bytes };
}
