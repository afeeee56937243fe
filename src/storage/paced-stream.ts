// Background copies (compaction) share their isolate with requests: an isolate runs one thing at
// a time, so a copy that pumps a hundred megabytes without pause holds up every request beside
// it until it ends. This stream lets the copy use at most `share` of its
// isolate's time: after each slice of `sliceBytes` it rests in proportion to how long the slice
// took, so requests run in between. Where a slice is quick (R2 in production), so is the rest.

export interface Pacing {
  sliceBytes: number;
  /** The most of the isolate's time the copy may take, 0 < share ≤ 1. */
  share: number;
  /** No single rest is longer than this. */
  maxRestMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `now` and `rest` are the clock and the timer; a test passes its own to see each rest. */
export function pacedStream(
  pacing: Pacing,
  now: () => number = () => performance.now(),
  rest: (ms: number) => Promise<void> = sleep,
): TransformStream<Uint8Array, Uint8Array> {
  let since = 0;
  let sliceStarted = now();
  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      controller.enqueue(chunk);
      since += chunk.byteLength;
      if (since < pacing.sliceBytes) return;
      since = 0;
      const busy = now() - sliceStarted;
      await rest(Math.min(pacing.maxRestMs, (busy * (1 - pacing.share)) / pacing.share));
      sliceStarted = now();
    },
  });
}
