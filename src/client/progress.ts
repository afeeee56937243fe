// Byte counting for progress callbacks: a pass-through stream that reports the running total.

/** Passes chunks through unchanged and calls `report` with the bytes seen so far. */
export function countingStream(report: (loaded: number) => void): TransformStream<Uint8Array, Uint8Array> {
  let loaded = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      loaded += chunk.length;
      report(loaded);
      controller.enqueue(chunk);
    },
  });
}
