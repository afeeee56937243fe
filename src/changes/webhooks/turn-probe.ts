// How long a no-I/O turn waits in this isolate while a consumer run sends: a zero-delay timer,
// every 100 ms. Beside an attempt's time, it tells the isolate's queue from the network
// (docs/performance.md "Webhooks").

const EVERY_MS = 100;

/** Starts sampling; the returned function stops it and tells the waits' median and longest (ms). */
export function turnProbe(): () => { median: number; max: number; samples: number } {
  const waits: number[] = [];
  let stopped = false;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  void (async () => {
    while (!stopped) {
      await sleep(EVERY_MS);
      if (stopped) return;
      const from = Date.now();
      await sleep(0);
      waits.push(Date.now() - from);
    }
  })();
  return () => {
    stopped = true;
    const sorted = [...waits].sort((a, b) => a - b);
    return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted[sorted.length - 1] ?? 0, samples: sorted.length };
  };
}
