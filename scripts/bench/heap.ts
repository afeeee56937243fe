// The worker isolate's own memory (V8 heap in use plus ArrayBuffer backing stores), read over
// the DevTools protocol on wrangler dev's inspector port. Unlike workerd's RSS it leaves out the
// runtime itself, the local D1/R2 simulators and heap pages V8 has not handed back.

import { writeFileSync } from "node:fs";

const CALL_TIMEOUT_MS = 5_000;
/**
 * How long a live reading may wait. The isolate answers the inspector only between its tasks, so
 * while a build keeps it busy an answer can take seconds; a reading that arrives late is still a
 * reading of that moment, and dropping it (as a 5 s limit did) left a build with 2 readings.
 */
const LIVE_CALL_TIMEOUT_MS = 120_000;

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
  /** Every reading (used + backing), in order. */
  readings: number[];
  /** With snapshots: the same pauses' readings after one forced collection only. */
  before?: number[];
}

export class Inspector {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, (result: unknown) => void>();
  /** Where a heap snapshot's chunks go while one is being taken (HeapProfiler.addHeapSnapshotChunk events). */
  #snapshotChunks: string[] | null = null;
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; method?: string; params?: { chunk?: string } };
      if (message.method === "HeapProfiler.addHeapSnapshotChunk") this.#snapshotChunks?.push(message.params?.chunk ?? "");
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

  #call(method: string, params?: object, timeoutMs = CALL_TIMEOUT_MS): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method} got no answer in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.#pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      this.#socket.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    });
  }

  async heapUsage(timeoutMs = CALL_TIMEOUT_MS): Promise<HeapUsage> {
    const result = (await this.#call("Runtime.getHeapUsage", undefined, timeoutMs)) as { usedSize?: number; backingStorageSize?: number } | undefined;
    return { used: result?.usedSize ?? 0, backing: result?.backingStorageSize ?? 0 };
  }

  /** A full, blocking V8 collection in the isolate, so the next reading counts live memory only. */
  async collectGarbage(timeoutMs = CALL_TIMEOUT_MS): Promise<void> {
    await this.#call("HeapProfiler.collectGarbage", undefined, timeoutMs);
  }

  /**
   * Live memory at the isolate's next pause between tasks: a full collection and the heap usage
   * after it, sent together so both are answered in the same pause (the inspector handles its
   * messages in order), however long the isolate stays busy first.
   */
  async liveUsage(): Promise<HeapUsage> {
    const [, usage] = await Promise.all([this.collectGarbage(LIVE_CALL_TIMEOUT_MS), this.heapUsage(LIVE_CALL_TIMEOUT_MS)]);
    return usage;
  }

  /**
   * Live memory and a heap snapshot of the same pause: a full collection, the heap usage after it,
   * and the snapshot's JSON (a `.heapsnapshot`, as DevTools saves it), sent together.
   */
  async liveUsageAndSnapshot(): Promise<{ usage: HeapUsage; after: HeapUsage; snapshot: string }> {
    this.#snapshotChunks = [];
    try {
      // The usage again after the snapshot, whose own collections (V8 collects all it can before
      // a snapshot) may free what the one forced collection left.
      const [, usage, , after] = await Promise.all([
        this.collectGarbage(LIVE_CALL_TIMEOUT_MS),
        this.heapUsage(LIVE_CALL_TIMEOUT_MS),
        this.#call("HeapProfiler.takeHeapSnapshot", { reportProgress: false }, LIVE_CALL_TIMEOUT_MS),
        this.heapUsage(LIVE_CALL_TIMEOUT_MS),
      ]);
      return { usage, after, snapshot: this.#snapshotChunks.join("") };
    } finally {
      this.#snapshotChunks = null;
    }
  }

  /** Starts V8's sampling CPU profiler in the isolate (DevTools Profiler domain). */
  async startProfiling(intervalMicros = 1000): Promise<void> {
    await this.#call("Profiler.enable", undefined, LIVE_CALL_TIMEOUT_MS);
    await this.#call("Profiler.setSamplingInterval", { interval: intervalMicros }, LIVE_CALL_TIMEOUT_MS);
    await this.#call("Profiler.start", undefined, LIVE_CALL_TIMEOUT_MS);
  }

  /** Stops the profiler: the profile, as DevTools saves it (a `.cpuprofile`). */
  async stopProfiling(): Promise<CpuProfile> {
    const result = (await this.#call("Profiler.stop", undefined, LIVE_CALL_TIMEOUT_MS)) as { profile: CpuProfile };
    return result.profile;
  }

  close(): void {
    this.#socket.close();
  }
}

/** A V8 CPU profile (DevTools protocol `Profiler.Profile`). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/**
 * Where a profile's time went: self time per function (name, file and line), largest first, and
 * the share of samples the isolate was idle (the profiler's `(idle)` node).
 */
export function profileSummary(profile: CpuProfile, top = 25): { seconds: number; idle: number; rows: Array<{ ms: number; share: number; frame: string }> } {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const frame = byNode.get(id)?.callFrame;
    const name = frame ? `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop() ?? ""}:${frame.lineNumber + 1}` : "?";
    total += delta;
    if (frame?.functionName === "(idle)") idle += delta;
    selfMicros.set(name, (selfMicros.get(name) ?? 0) + delta);
  }
  const rows = [...selfMicros]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, micros]) => ({ ms: Math.round(micros / 1000), share: total > 0 ? micros / total : 0, frame }));
  return { seconds: total / 1e6, idle: total > 0 ? idle / total : 0, rows };
}

/**
 * Live memory: every `intervalMs`, a forced full collection, then heap usage (used + backing),
 * answered at the isolate's next pause between tasks (Inspector.liveUsage). What the isolate
 * really holds at its pauses, which a build reaches at every R2 read and write; the collections
 * slow the request a little, so this runs on a request of its own whose time is not counted.
 */
export interface SnapshotPlan {
  /** Files are `${prefix}-${n}-${reading}-heap-${V8 heap}-backing-${backing stores}-after-${heap}-${backing}.heapsnapshot` (MiB; after: read after the snapshot); null writes none. */
  prefix: string | null;
  /**
   * The reading recorded is the one after the snapshot: what is left once V8 has collected all it
   * can, where one forced collection leaves memory no object holds (docs/performance.md, run S).
   */
  readAfter?: boolean;
  /** A snapshot is taken with the reading after one at or above this many bytes… */
  atBytes: number;
  /** …at most this many times. */
  most: number;
}

export function sampleLiveHeap(inspector: Inspector, intervalMs = 500, snapshots: SnapshotPlan | null = null): { stop(): Promise<HeapSummary> } {
  let running = true;
  let baseline = Number.NaN;
  let peak = 0;
  let samples = 0;
  let taken = 0;
  let previous = 0;
  const readings: number[] = [];
  /** With snapshots: each reading's one forced collection, before the snapshot's. */
  const before: number[] = [];
  const read = async () => {
    // Peaks come in runs of readings: the reading after a high one is taken with a snapshot of the same pause.
    if (snapshots && taken < snapshots.most && previous >= snapshots.atBytes) {
      taken++;
      const { usage, after, snapshot } = await inspector.liveUsageAndSnapshot();
      const total = usage.used + usage.backing;
      const mib = (bytes: number) => (bytes / (1 << 20)).toFixed(1);
      const name = `${String(taken).padStart(3, "0")}-${mib(total)}-heap-${mib(usage.used)}-backing-${mib(usage.backing)}-after-${mib(after.used)}-${mib(after.backing)}`;
      if (snapshots.prefix !== null) writeFileSync(`${snapshots.prefix}-${name}.heapsnapshot`, snapshot);
      before.push(total);
      return (previous = snapshots.readAfter ? after.used + after.backing : total);
    }
    const usage = await inspector.liveUsage();
    return (previous = usage.used + usage.backing);
  };
  const loop = (async () => {
    while (running) {
      const total = await read().catch(() => null);
      if (total !== null) {
        if (samples === 0) baseline = total;
        peak = Math.max(peak, total);
        samples++;
        readings.push(total);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { baseline, peak, samples, readings, ...(before.length > 0 ? { before } : {}) };
    },
  };
}

/** Polls heap usage (used + backing) back to back, at most every `intervalMs`, until `stop()`. */
export function sampleHeap(inspector: Inspector, intervalMs = 50): { stop(): Promise<HeapSummary> } {
  let running = true;
  let baseline = Number.NaN;
  let peak = 0;
  let samples = 0;
  const readings: number[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const usage = await inspector.heapUsage().catch(() => null);
      if (usage !== null) {
        const total = usage.used + usage.backing;
        if (samples === 0) baseline = total;
        peak = Math.max(peak, total);
        samples++;
        readings.push(total);
      }
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { baseline, peak, samples, readings };
    },
  };
}
