// Small ReadableStream helpers the upload and download paths share, written against the
// WHATWG streams API only (no async iteration, which not every typing of it declares).

/** Calls `onChunk` for every chunk, in order, waiting for it each time. */
export async function forEachChunk(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await onChunk(value);
    }
  } catch (error: unknown) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    reader.releaseLock();
  }
}

export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

export type StreamPiece = Uint8Array | (() => ReadableStream<Uint8Array>);

/** The pieces one after the other; a function piece is opened only when its turn comes. */
export function concatStreams(pieces: StreamPiece[]): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader) {
          const { done, value } = await reader.read();
          if (!done) {
            controller.enqueue(value);
            return;
          }
          reader = null;
        }
        const piece = pieces[index++];
        if (piece === undefined) {
          controller.close();
          return;
        }
        if (piece instanceof Uint8Array) {
          if (piece.length > 0) {
            controller.enqueue(piece);
            return;
          }
        } else {
          reader = piece().getReader();
        }
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
    },
  });
}

export async function readAllBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  await forEachChunk(stream, (chunk) => {
    chunks.push(chunk);
    length += chunk.length;
  });
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}
