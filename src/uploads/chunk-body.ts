// The body of one resumable-upload chunk (src/uploads/chunks.ts): counted, bounded by
// the upload's size, readable to its end after the scan gave up on it, and the carried bytes of
// the chunk before put in front of it.
import { ApiError } from "../model/errors.ts";
import { withHead } from "../wire/stream-sequence.ts";

export function tooLarge(max: number): ApiError {
  return new ApiError("payload_too_large", `A resumable upload is limited to ${max} bytes.`, { limit: "MAX_RESUMABLE_BYTES", max });
}

/** An `Upload-Length` (draft §4.1.3) past what any upload may hold: the same 413 as content that goes past it. */
export function lengthTooLarge(length: number, max: number): ApiError {
  return new ApiError("payload_too_large", `Upload-Length says ${length} bytes; a resumable upload is limited to ${max} bytes.`, { limit: "MAX_RESUMABLE_BYTES", max });
}

/**
 * The PATCH body as sent: counted (the offset moves by what arrived), bounded by the upload's
 * size, and readable to its end after the scan gave up on it (cancelling the scan does not
 * cancel the request body, so its digest can still be checked).
 */
export class SentBody {
  bytes = 0;
  readonly stream: ReadableStream<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | null;

  constructor(body: ReadableStream<Uint8Array> | null, offset: number, bound: { max: number; over: () => ApiError }) {
    this.reader = body?.getReader() ?? null;
    const reader = this.reader;
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const next = reader ? await reader.read() : { done: true as const, value: undefined };
          if (next.done) return controller.close();
          this.bytes += next.value.length;
          if (offset + this.bytes > bound.max) throw bound.over();
          controller.enqueue(next.value);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Reads what is left; throws what the body's stream throws (a digest mismatch). */
  async drain(): Promise<void> {
    if (!this.reader) return;
    for (;;) {
      const { done } = await this.reader.read();
      if (done) return;
    }
  }
}

export function prepend(head: Uint8Array, rest: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return head.length === 0 ? rest : withHead(head, rest.getReader());
}

/** `decode(stream)`, except that an empty stream stays empty (an empty last chunk of a gzip upload). */
export function unlessEmpty(
  stream: ReadableStream<Uint8Array>,
  decode: (stream: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let inner: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const rest = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (inner === null) {
          let first = await reader.read();
          while (!first.done && first.value.length === 0) first = await reader.read();
          if (first.done) return controller.close();
          inner = decode(prepend(first.value, rest)).getReader();
        }
        const { done, value } = await inner.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => (inner ?? reader).cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
