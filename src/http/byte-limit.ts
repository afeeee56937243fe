// Counts bytes flowing through a stream and fails it once they pass a bound, so an oversized
// body or a decompression bomb is stopped as it streams instead of after it filled memory.

export function byteLimitStream(maxBytes: number, onExceeded: () => Error): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) throw onExceeded();
      controller.enqueue(chunk);
    },
  });
}
