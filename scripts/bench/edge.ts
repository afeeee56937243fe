// The read path at the edge (docs/edge-and-caching.md): D1 round trips per request type, as
// the bench entry counts them around the real binding (X-Bench-D1); anonymous GET requests a
// second through the local in-worker cache against a bare route of the same worker, and the
// same GET with no cache at all; the worker's bundle and the time a fresh `wrangler dev` takes
// to its first answer. Two servers, one after the other, on the same state: EDGE_CACHE
// "in-worker" (the local stand-in) and "workers-cache" (production: the Worker keeps no cache,
// so every request that reaches it is a miss).
import type { SigningKey } from "../../src/wire/sign.ts";
import { contentDigest, datasetMultipart, type RequestBody } from "./body.ts";
import { exchange, expectJson } from "./http.ts";
import { attempt, type Outcome } from "./results.ts";
import { freePort, startServer, type RunningServer } from "./server.ts";
import { signedHeaders } from "./signing.ts";
import { median } from "./stats.ts";
import type { WorkerBuild } from "./worker-build.ts";

export const CONCURRENCY = 8;
const THROUGHPUT_SECONDS = 5;
const TIMEOUT_MS = 60_000;

export interface D1Row {
  request: string;
  /** EDGE_CACHE=workers-cache: what a request that reaches the deployed Worker costs. */
  production: string;
  /** EDGE_CACHE=in-worker: the first request (miss) and the second (hit, when cacheable). */
  localMiss: string;
  localHit: string;
}

export interface ThroughputRow {
  label: string;
  requests: number;
  seconds: number;
  p50Ms: number;
}

export interface EdgeResults {
  d1: Outcome<D1Row[]>;
  throughput: Outcome<ThroughputRow[]>;
  startup: Outcome<{ bundleBytes: number; bundleGzipBytes: number; readyMs: number; firstGetMs: number; warmGetMs: number }>;
}

interface Target {
  id: string;
  version: string;
  source: string;
}

function d1Header(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers["x-bench-d1"];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const match = /queries=(\d+); writes=(\d+)/.exec(value ?? "");
  if (!match) return "?";
  return match[2] === "0" ? `${match[1]}` : `${match[1]} (${match[2]} writing)`;
}

async function send(origin: string, key: SigningKey | null, method: string, path: string, body?: RequestBody) {
  const url = origin + path;
  const digest = body ? await contentDigest(body) : undefined;
  const headers = key ? await signedHeaders(method, url, key, body ? { "content-type": body.contentType } : {}, digest) : new Headers();
  return exchange({ method, url, headers, body, timeoutMs: TIMEOUT_MS, keepBody: true });
}

async function seed(origin: string, key: SigningKey): Promise<Target> {
  const body = datasetMultipart({ name: "edge bench", visibility: "public", properties: { description: "edge bench" } }, { bytes: new TextEncoder().encode("city,population\nTokyo,37400068\nDelhi,28514000\n"), fileName: "cities.csv" });
  const created = expectJson<Target>(await send(origin, key, "POST", "/v1/dataset", body), 201, "edge bench create");
  return created;
}

type Step = { label: string; run: (origin: string, key: SigningKey, t: Target) => ReturnType<typeof send>; cacheable: boolean };

function steps(): Step[] {
  const get = (path: (t: Target) => string) => (origin: string, _key: SigningKey, t: Target) => send(origin, null, "GET", path(t));
  const signedGet = (path: (t: Target) => string) => (origin: string, key: SigningKey, t: Target) => send(origin, key, "GET", path(t));
  return [
    { label: "anonymous GET record, explicit version", run: get((t) => `/v1/dataset/${t.id}/${t.version}`), cacheable: true },
    { label: "anonymous GET record, `latest`", run: get((t) => `/v1/dataset/${t.id}`), cacheable: true },
    { label: "anonymous GET `.csv`", run: get((t) => t.source.replace(/\.gz$/, "")), cacheable: true },
    { label: "anonymous GET `rows`", run: get((t) => `/v1/dataset/${t.id}/${t.version}/rows`), cacheable: true },
    { label: "anonymous list", run: get(() => "/v1/dataset?limit=10"), cacheable: true },
    { label: "anonymous search", run: get(() => "/v1/dataset?q=edge"), cacheable: true },
    { label: "signed GET record (key cached)", run: signedGet((t) => `/v1/dataset/${t.id}`), cacheable: false },
    {
      label: "signed append",
      run: (origin, key, t) => send(origin, key, "POST", `/v1/dataset/${t.id}`, datasetMultipart(null, { bytes: new TextEncoder().encode("Lagos,15388000\n"), fileName: "rows.csv" })),
      cacheable: false,
    },
    { label: "signed PUT (rename)", run: (origin, key, t) => send(origin, key, "PUT", `/v1/dataset/${t.id}`, collectionOnly({ name: "edge bench renamed" })), cacheable: false },
  ];
}

/** A PUT body with only the `collection` part. */
function collectionOnly(collection: object): RequestBody {
  const boundary = "pubset-edge-bench";
  const bytes = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="collection"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(collection)}\r\n--${boundary}--\r\n`,
  );
  return { contentType: `multipart/form-data; boundary=${boundary}`, length: bytes.length, pieces: [{ kind: "bytes", bytes }] };
}

async function countD1(origin: string, key: SigningKey, target: Target, twice: boolean): Promise<Array<[string, string]>> {
  // The signed GET's key lookup is cached per isolate: warm it so the row shows the steady state.
  await send(origin, key, "GET", "/v1/dataset?limit=1");
  const out: Array<[string, string]> = [];
  for (const step of steps()) {
    const first = await step.run(origin, key, target);
    if (first.status >= 400) throw new Error(`${step.label}: HTTP ${first.status} ${first.text.slice(0, 200)}`);
    let second = "—";
    if (twice && step.cacheable) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      second = d1Header((await step.run(origin, key, target)).headers);
    }
    out.push([d1Header(first.headers), second]);
  }
  return out;
}

async function hammer(label: string, url: string): Promise<ThroughputRow> {
  const latencies: number[] = [];
  const end = performance.now() + THROUGHPUT_SECONDS * 1000;
  const started = performance.now();
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${label}: HTTP ${response.status}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { label, requests: latencies.length, seconds: (performance.now() - started) / 1000, p50Ms: median(latencies) };
}

async function withServer<T>(build: WorkerBuild, stateDir: string, logFile: string, edgeCache: string, run: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(build, stateDir, await freePort(), logFile, { EDGE_CACHE: edgeCache });
  try {
    return await run(server);
  } finally {
    await server.stop();
  }
}

export async function measureEdge(build: WorkerBuild, stateDir: string, key: SigningKey, logFile: string): Promise<EdgeResults> {
  const results: EdgeResults = {
    d1: { ok: false, error: "not run" },
    throughput: { ok: false, error: "not run" },
    startup: { ok: false, error: "not run" },
  };
  let target: Target | null = null;
  const production: ThroughputRow[] = [];
  let productionCounts: Array<[string, string]> = [];
  await withServer(build, stateDir, logFile, "workers-cache", async (server) => {
    results.startup = await attempt("cold start", async () => {
      const t0 = performance.now();
      const first = await fetch(`${server.origin}/v1/dataset?q=start`);
      await first.arrayBuffer();
      const firstGetMs = performance.now() - t0;
      const warm: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await (await fetch(`${server.origin}/v1/dataset?q=start`)).arrayBuffer();
        warm.push(performance.now() - t);
      }
      return { bundleBytes: build.bundleBytes, bundleGzipBytes: build.bundleGzipBytes, readyMs: server.readyMs, firstGetMs, warmGetMs: median(warm) };
    });
    const seeded = await attempt("edge seed", () => seed(server.origin, key));
    if (!seeded.ok) throw new Error(seeded.error);
    target = seeded.value;
    const t = seeded.value;
    productionCounts = await countD1(server.origin, key, t, false);
    production.push(await hammer("anonymous GET record, explicit version, no cache (production config: every request reaching the Worker is a miss)", `${server.origin}/v1/dataset/${t.id}/${t.version}`));
  });
  await withServer(build, stateDir, logFile, "in-worker", async (server) => {
    const t = target as Target | null;
    if (t === null) throw new Error("no seeded dataset");
    results.d1 = await attempt("D1 calls", async () => {
      const local = await countD1(server.origin, key, t, true);
      return steps().map((step, i): D1Row => ({
        request: step.label,
        production: productionCounts[i]?.[0] ?? "?",
        localMiss: local[i]?.[0] ?? "?",
        localHit: local[i]?.[1] ?? "?",
      }));
    });
    results.throughput = await attempt("throughput", async () => [
      await hammer("anonymous GET record, explicit version, through the in-worker cache (hits)", `${server.origin}/v1/dataset/${t.id}/${t.version}`),
      await hammer("bare route `GET /__bench/bare` (no app middleware, no D1, no R2)", `${server.origin}/__bench/bare`),
      ...production,
    ]);
  });
  return results;
}
