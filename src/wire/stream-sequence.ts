// Several byte sources read one after the other as one stream: the joined gzip (header,
// segments, trailer), compaction's concatenation, and the byte ranges of downloads.

/** Opens one source's bytes (an R2 object or range). Called at most once, when needed. */
export type StreamOpener = () => Promise<ReadableStream<Uint8Array>>;

/**
 * A pull-based stream over `parts` in order: nothing is opened until the consumer reads, and
 * part i + 1 is opened only after part i has ended, so at most one is open at a time.
 */
export function sequenceStream(parts: ReadonlyArray<Uint8Array | StreamOpener>): ReadableStream<Uint8Array> {
  let next = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Loop until one chunk is enqueued: a pull that enqueues nothing would not be repeated.
        for (;;) {
          if (reader) {
            const { done, value } = await reader.read();
            if (!done) {
              if (value.length > 0) return controller.enqueue(value);
              continue;
            }
            reader.releaseLock();
            reader = undefined;
          }
          const part = parts[next++];
          if (part === undefined) return controller.close();
          if (part instanceof Uint8Array) {
            // A copy, so no consumer can alter or detach the shared GZIP_HEADER.
            if (part.length > 0) return controller.enqueue(part.slice());
            continue;
          }
          reader = (await part()).getReader();
        }
      },
      async cancel(reason: unknown) {
        const open = reader;
        reader = undefined;
        next = parts.length;
        await open?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** `head`, then the rest of a stream already being read through `reader`, as one stream. */
export function withHead(head: Uint8Array, reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  let sent = head.length === 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!sent) {
          sent = true;
          return controller.enqueue(head);
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
