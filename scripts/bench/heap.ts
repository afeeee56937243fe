// The worker isolate's own memory (V8 heap in use plus ArrayBuffer backing stores), read over
// the DevTools protocol on wrangler dev's inspector port. Unlike workerd's RSS it leaves out the
// runtime itself, the local D1/R2 simulators and heap pages V8 has not handed back.

const CALL_TIMEOUT_MS = 5_000;

/** Node's WebSocket (undici) takes request headers as a second argument; the DOM typing omits it. */
type NodeWebSocket = new (url: string, init: { headers: Record<string, string> }) => WebSocket;

export interface HeapUsage {
  /** V8 heap in use, garbage not yet collected included. */
  used: number;
  /** ArrayBuffer backing stores (request chunks, fflate's buffers), outside the V8 heap. */
  backing: number;
}

export interface HeapSummary {
  baseline: number;
  peak: number;
  samples: number;
}

export class Inspector {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (result: unknown) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id === undefined) return;
      this.#pending.get(message.id)?.(message.result);
      this.#pending.delete(message.id);
    });
  }

  /** Connects to the worker behind wrangler dev's inspector proxy (which wants a local Origin). */
  static connect(port: number): Promise<Inspector> {
    const socket = new (WebSocket as unknown as NodeWebSocket)(`ws://127.0.0.1:${port}/ws`, { headers: { origin: "http://localhost" } });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.close();
        reject(new Error("inspector connection timed out"));
      }, CALL_TIMEOUT_MS);
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        resolve(new Inspector(socket));
      });
      socket.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new Error(`cannot connect to the inspector on port ${port}`));
      });
    });
  }

  #call(method: string, params?: object): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} got no answer in ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.#pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.#socket.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    });
  }

  async heapUsage(): Promise<HeapUsage> {
    const result = (await this.#call("Runtime.getHeapUsage")) as { usedSize?: number; backingStorageSize?: number } | undefined;
    return { used: result?.usedSize ?? 0, backing: result?.backingStorageSize ?? 0 };
  }

  /** A full, blocking V8 collection in the isolate, so the next reading counts live memory only. */
  async collectGarbage(): Promise<void> {
    await this.#call("HeapProfiler.collectGarbage");
  }

  close(): void {
    this.#socket.close();
  }
}

/**
 * Live memory: every `intervalMs`, a forced full collection, then heap usage (used + backing).
 * What the isolate really holds at that moment; the collections slow the request a little, so
 * this runs on a request of its own whose time is not counted.
 */
export function sampleLiveHeap(inspector: Inspector, intervalMs = 500): { stop(): Promise<HeapSummary> } {
  let running = true;
  let baseline = Number.NaN;
  let peak = 0;
  let samples = 0;
  const read = async () => {
    await inspector.collectGarbage();
    const usage = await inspector.heapUsage();
    return usage.used + usage.backing;
  };
  const loop = (async () => {
    while (running) {
      const total = await read().catch(() => null);
      if (total !== null) {
        if (samples === 0) baseline = total;
        peak = Math.max(peak, total);
        samples++;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { baseline, peak, samples };
    },
  };
}

/** Polls heap usage (used + backing) back to back, at most every `intervalMs`, until `stop()`. */
export function sampleHeap(inspector: Inspector, intervalMs = 50): { stop(): Promise<HeapSummary> } {
  let running = true;
  let baseline = Number.NaN;
  let peak = 0;
  let samples = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const usage = await inspector.heapUsage().catch(() => null);
      if (usage !== null) {
        const total = usage.used + usage.backing;
        if (samples === 0) baseline = total;
        peak = Math.max(peak, total);
        samples++;
      }
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { baseline, peak, samples };
    },
  };
}
