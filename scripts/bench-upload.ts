// `npm run bench` (fourth part; alone: `npm run bench:upload`): resumable uploads from
// a local worker — a generated CSV (1 GiB; BENCH_UPLOAD_MIB for a quicker run) sent by the
// client as a resumable upload, each chunk a parted gzip member: wall time, server MB/s (raw bytes
// over the time the PATCH requests took), the isolate's live memory during it (forced-GC
// readings over the inspector); then the same upload with the connection dropped half-way
// through the chunk at ~50 %, resumed: the bytes sent again.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PubsetClient, type SigningKey } from "../src/client/index.ts";
import { DEFAULT_CHUNK_BYTES } from "../src/client/resumable-upload.ts";
import { writeCsvFile } from "./bench/csv-gen.ts";
import { Inspector, sampleLiveHeap, type HeapSummary } from "./bench/heap.ts";
import { freePort, prepareState, startServer, type RunningServer } from "./bench/server.ts";
import { errorText, machineLine, MB, MIB, runBenchPart } from "./bench/stats.ts";
import { buildWorker } from "./bench/worker-build.ts";
import { PROJECT_ROOT } from "./lib/paths.ts";

const OUT_DIR = join(PROJECT_ROOT, "bench", "out");

interface Run {
  wallSeconds: number;
  /** Summed durations of the PATCH requests: the server's share of the wall time. */
  patchSeconds: number;
  patches: number;
  /** Bytes of PATCH bodies that left the client, dropped ones included. */
  sentBytes: number;
  heap: HeapSummary | null;
  id: string;
}

/**
 * fetch for the client, counting PATCH bodies and timing each PATCH. `dropAt`: the PATCH whose
 * body crosses that many sent bytes is cut half-way through (the connection drops).
 */
function instrumentedFetch(run: Run, dropAt: number | null): typeof fetch {
  let dropped = false;
  return async (input, init) => {
    if (init?.method !== "PATCH" || !(init.body instanceof ReadableStream)) return fetch(input, init);
    const length = Number(new Headers(init.headers).get("content-length") ?? "0");
    const drop = !dropped && dropAt !== null && run.sentBytes + length >= dropAt;
    if (drop) dropped = true;
    // Sent in 1 MiB pieces, as a socket would take them; the dropped one stops half-way.
    const reader = (init.body as ReadableStream<Uint8Array>).getReader();
    let buffer: Uint8Array = new Uint8Array(0);
    let at = 0;
    let seen = 0;
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (at >= buffer.length) {
            const next = await reader.read();
            if (next.done) return controller.close();
            buffer = next.value;
            at = 0;
          }
          const piece = buffer.subarray(at, at + 1024 * 1024);
          at += piece.length;
          if (drop && seen + piece.length > length / 2) {
            await new Promise((resolve) => setTimeout(resolve, 200));
            return controller.error(new Error("bench: connection dropped half-way through the chunk"));
          }
          seen += piece.length;
          run.sentBytes += piece.length;
          controller.enqueue(piece);
        },
      },
      { highWaterMark: 0 },
    );
    const started = performance.now();
    try {
      return await fetch(input, { ...init, body: counted, duplex: "half" } as RequestInit);
    } finally {
      run.patchSeconds += (performance.now() - started) / 1000;
      run.patches++;
    }
  };
}

async function upload(origin: string, key: SigningKey, path: string, inspector: Inspector | null, dropAt: number | null): Promise<Run> {
  const run: Run = { wallSeconds: 0, patchSeconds: 0, patches: 0, sentBytes: 0, heap: null, id: "" };
  const client = new PubsetClient({ url: origin, key, resumableThreshold: 0, fetch: instrumentedFetch(run, dropAt), retry: { baseDelayMs: 50 } });
  const sampler = inspector ? sampleLiveHeap(inspector, 1000) : null;
  const started = performance.now();
  const created = await client.create({ name: `bench upload ${dropAt === null ? "clean" : "interrupted"}` }, { path }, { fileName: "bench.csv" });
  run.wallSeconds = (performance.now() - started) / 1000;
  run.heap = sampler ? await sampler.stop() : null;
  run.id = created.id;
  return run;
}

async function sameBytes(origin: string, key: SigningKey, id: string, size: number): Promise<boolean> {
  const download = await new PubsetClient({ url: origin, key }).download({ id }, { format: "csv" });
  let total = 0;
  const reader = download.stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
  }
  return total === size;
}

function render(size: number, clean: Run, interrupted: Run, compressedBytes: number, machine: string, checked: boolean): string {
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  const heap = (h: HeapSummary | null) => (h ? `${mb(h.peak - h.baseline)} above a ${mb(h.baseline)} baseline (peak ${mb(h.peak)}, ${h.samples} readings)` : "not measured");
  // The chunks are compressed the same way each time, so whatever the second run sent beyond the
  // first was sent again.
  const resent = interrupted.sentBytes - compressedBytes;
  return [
    `### Resumable upload: a ${(size / MIB).toFixed(0)} MiB (${mb(size)}) generated CSV, sent in chunks of at most ${DEFAULT_CHUNK_BYTES / MIB} MiB of CSV, each a parted gzip member the server stores as sent`,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; \`npm run bench:upload\` (BENCH_UPLOAD_MIB=${Math.round(size / MIB)}). MB = 10⁶ bytes.`,
    "",
    "| figure | measured |",
    "|---|---|",
    `| wall time, client gzip included | ${clean.wallSeconds.toFixed(1)} s (${(size / MB / clean.wallSeconds).toFixed(1)} MB/s of CSV) |`,
    `| server time (the ${clean.patches} PATCH requests) and server MB/s | ${clean.patchSeconds.toFixed(1)} s, **${(size / MB / clean.patchSeconds).toFixed(1)} MB/s** of CSV |`,
    `| bytes sent (parted gzip members) | ${mb(compressedBytes)} (${((compressedBytes / size) * 100).toFixed(1)} % of the CSV) |`,
    `| isolate live memory during the upload (forced GC each second, which slows this run a little) | ${heap(clean.heap)} |`,
    `| interrupted at ~50 % (connection dropped half-way through a chunk), resumed from HEAD: wall time | ${interrupted.wallSeconds.toFixed(1)} s |`,
    `| bytes sent again after the drop | **${mb(resent)}** (${((resent / compressedBytes) * 100).toFixed(1)} % of the upload: what the dropped request had sent, under one chunk) |`,
    `| both datasets hold exactly the CSV's bytes | ${checked ? "yes" : "**no**"} |`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const mebibytes = Number(process.env.BENCH_UPLOAD_MIB ?? "1024");
  const work = mkdtempSync(join(tmpdir(), "pubset-bench-upload-"));
  let server: RunningServer | null = null;
  let inspector: Inspector | null = null;
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    process.stderr.write(`bench upload: generating a ${mebibytes} MiB CSV…\n`);
    const csv = writeCsvFile(join(work, "upload.csv"), mebibytes * MIB, 12);
    const size = statSync(csv.path).size;
    const stateDir = join(work, "state");
    const key = await prepareState(stateDir);
    const build = await buildWorker(join(work, "app"));
    const logFile = join(OUT_DIR, "wrangler-upload.log");
    server = await startServer(build, stateDir, await freePort(), logFile);
    inspector = await Inspector.connect(server.inspectorPort).catch((error: unknown) => {
      process.stderr.write(`bench upload: no isolate heap figures: ${errorText(error)}\n`);
      return null;
    });
    process.stderr.write("bench upload: the clean upload…\n");
    const clean = await upload(server.origin, key, csv.path, inspector, null);
    const compressedBytes = clean.sentBytes;
    process.stderr.write("bench upload: the same upload, its connection dropped at ~50 %…\n");
    const interrupted = await upload(server.origin, key, csv.path, null, compressedBytes / 2);
    process.stderr.write("bench upload: checking both datasets…\n");
    const checked = (await sameBytes(server.origin, key, clean.id, size)) && (await sameBytes(server.origin, key, interrupted.id, size));
    const report = render(size, clean, interrupted, compressedBytes, machineLine(), checked);
    writeFileSync(join(OUT_DIR, "upload.md"), report);
    process.stdout.write(report);
    return checked ? 0 : 1;
  } finally {
    inspector?.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchPart("bench upload", main);
