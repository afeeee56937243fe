// Request bodies reach a Worker in chunks of a few KiB, and every JS stream stage after them
// (byte limit, digest, multipart, ingest) costs a promise round trip per chunk. Reading with
// workerd's BYOB `readAtLeast` gathers them natively into chunks of at least 64 KiB first.

const MIN_CHUNK = 64 * 1024;
const MAX_CHUNK = 256 * 1024;

/** The same bytes in larger chunks; `body` as it is where BYOB reads are not offered. */
export function largeChunks(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    return body;
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.readAtLeast(MIN_CHUNK, new Uint8Array(MAX_CHUNK));
        if (value !== undefined && value.byteLength > 0) controller.enqueue(value);
        if (done) controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
