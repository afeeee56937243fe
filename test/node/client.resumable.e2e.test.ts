// Resumable uploads end to end against a real `npm start` (docs/resumable-uploads.md): the
// client and the CLI cut a file into chunks, and a proxy in front of the worker breaks some of
// them — a connection dropped part-way through a PATCH body, an answer lost after the chunk
// landed, the last chunk's answer lost — and the write still ends with exactly the file.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllBytes } from "../../src/client/byte-streams.ts";
import { PubsetClient, type Progress, type SigningKey } from "../../src/client/index.ts";
import { DEFAULT_GZIP_LEVEL } from "../../src/client/gzip-stream.ts";
import { partedChunks, type PartedChunk } from "../../src/client/parted-chunks.ts";
import { readPartedGzipHeader } from "../../src/wire/parted-gzip-header.ts";
import { runInProcess } from "./cli.helpers.ts";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

/** What the proxy does to the n-th PATCH (1-based); absent: forwards it. */
type Fault = "drop-mid-body" | "lose-answer";

interface Proxy {
  url: string;
  faults: Map<number, Fault>;
  patches: number;
  /** Bytes of PATCH bodies the client sent through the proxy. */
  patchBytes: number;
  /** `Upload-Length` of every request that carried one, in order. */
  uploadLengths: string[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

async function startProxy(upstream: string): Promise<Proxy> {
  const target = new URL(upstream);
  const proxy: Proxy = { url: "", faults: new Map(), patches: 0, patchBytes: 0, uploadLengths: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const announced = req.headers["upload-length"];
    if (typeof announced === "string") proxy.uploadLengths.push(announced);
    const fault = req.method === "PATCH" ? proxy.faults.get(++proxy.patches) : undefined;
    const outgoing = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: endToEnd(req.headers), agent: false }, (answer) => {
      if (fault === "lose-answer") {
        answer.resume();
        answer.on("end", () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(res);
    });
    outgoing.on("error", () => req.socket.destroy());
    let forwarded = 0;
    const length = Number(req.headers["content-length"] ?? "0");
    req.on("data", (chunk: Buffer) => {
      if (req.method === "PATCH") proxy.patchBytes += chunk.length;
      if (fault === "drop-mid-body" && forwarded + chunk.length > length / 2) {
        // Part of the body reached the worker, then both connections die.
        outgoing.write(chunk.subarray(0, Math.max(0, Math.floor(length / 2) - forwarded)));
        outgoing.destroy();
        req.socket.destroy();
        return;
      }
      forwarded += chunk.length;
      outgoing.write(chunk);
    });
    req.on("end", () => outgoing.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** A CSV of about `bytes` bytes with quoted line breaks, so chunk ends fall inside records. */
function generatedCsv(bytes: number): string {
  let csv = "id,city,note\n";
  for (let i = 0; csv.length < bytes; i++) csv += `${i},"Zürich ${i}","line ${i}\nsecond ""part"""\n`;
  return csv;
}

let server: E2eServer & { stop(): Promise<void> };
let proxy: Proxy;
let key: SigningKey;
let direct: PubsetClient;
let dir: string;

beforeAll(async () => {
  server = await e2eServer();
  proxy = await startProxy(server.url);
  key = { keyId: server.demoKey.key_id, secret: server.demoKey.secret };
  direct = new PubsetClient({ url: server.url, key });
  dir = await mkdtemp(join(tmpdir(), "pubset-resumable-"));
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The chunks the client makes of `csv` (its own cutter: the test counts requests, not bytes). */
/** The server's `min-append-size` (wrangler.toml MIN_UPLOAD_CHUNK_BYTES), which the client keeps to. */
const MIN_CHUNK = 64 * 1024;

async function clientChunks(csv: string, chunkBytes: number): Promise<PartedChunk[]> {
  const chunks: PartedChunk[] = [];
  for await (const chunk of partedChunks(new Blob([csv]).stream(), DEFAULT_GZIP_LEVEL, chunkBytes, MIN_CHUNK)) chunks.push(chunk);
  return chunks;
}

async function csvOf(id: string): Promise<string> {
  const download = await direct.download({ id }, { format: "csv" });
  return new TextDecoder().decode(await readAllBytes(download.stream));
}

describe("resumable uploads through a faulty connection", { timeout: 120_000 }, () => {
  it("the client resumes from HEAD after a dropped chunk, a lost answer and a lost last answer", async () => {
    // Big enough for seven chunks of at least MIN_CHUNK bytes once compressed.
    const csv = generatedCsv(4_000_000);
    const client = new PubsetClient({ url: proxy.url, key, resumableThreshold: 1, chunkBytes: 64 * 1024, retry: { baseDelayMs: 10 } });
    proxy.patches = 0;
    proxy.patchBytes = 0;
    const sent = await clientChunks(csv, 64 * 1024);
    const chunks = sent.length;
    expect(chunks).toBeGreaterThan(6);
    proxy.faults = new Map<number, Fault>([
      [2, "drop-mid-body"],
      [4, "lose-answer"],
      [chunks + 1, "lose-answer"],
    ]);
    const seen: Progress[] = [];
    const created = await client.create({ name: "Resumed" }, new Blob([csv]), { fileName: "cities.csv", onProgress: (p) => seen.push(p) });
    proxy.faults = new Map();
    expect(created.source).toMatch(/\/cities\.csv\.gz$/);
    expect(await csvOf(created.id)).toBe(csv);
    // Every chunk once, the dropped one again, the last one again (empty) for its lost answer.
    expect(proxy.patches).toBe(chunks + 2);
    // One progress over the whole file, in source bytes, then the server's processing.
    const size = new TextEncoder().encode(csv).length;
    expect(seen.every((p) => p.total === size)).toBe(true);
    expect(seen.at(-1)?.phase).toBe("processing");
    const uploads = seen.filter((p) => p.phase === "upload").map((p) => p.loaded);
    expect(Math.max(...uploads)).toBe(size);
    // Every chunk was stored as sent: the download is the chunks' parts joined, nothing recompressed.
    const gz = await readAllBytes((await direct.download({ id: created.id }, { format: "gzip" })).stream);
    const parts = Buffer.concat(sent.map(({ bytes }) => {
      const header = readPartedGzipHeader(bytes);
      return bytes.subarray(header.status === "parted" ? header.headerBytes : 0, bytes.length - 10);
    }));
    expect(Buffer.from(gz.subarray(10, gz.length - 10)).equals(parts)).toBe(true);
  });

  it("a second run with the same Idempotency-Key goes on where an interrupted one stopped", async () => {
    const csv = generatedCsv(2_500_000);
    const chunks = (await clientChunks(csv, 64 * 1024)).length;
    expect(chunks).toBeGreaterThan(2);
    const abort = new AbortController();
    let landed = 0;
    // The first run is cut off (Ctrl-C) once two chunks have landed.
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === "PATCH" && response.status === 204 && ++landed === 2) abort.abort(new Error("interrupted"));
      return response;
    };
    const options = { url: proxy.url, key, resumableThreshold: 1, chunkBytes: 64 * 1024 };
    const idempotencyKey = crypto.randomUUID();
    const first = await new PubsetClient({ ...options, fetch: cutting })
      .create({ name: "Twice" }, new Blob([csv]), { idempotencyKey, signal: abort.signal })
      .then(() => null, (error: unknown) => error);
    expect(first).toBeInstanceOf(Error);
    proxy.patches = 0;
    const created = await new PubsetClient(options).create({ name: "Twice" }, new Blob([csv]), { idempotencyKey });
    expect(proxy.patches).toBe(chunks - 2);
    expect(await csvOf(created.id)).toBe(csv);
    // A third run finds the upload complete and gets the same answer.
    proxy.patches = 0;
    const again = await new PubsetClient(options).create({ name: "Twice" }, new Blob([csv]), { idempotencyKey });
    expect(again).toEqual(created);
    expect(proxy.patches).toBe(1);
  });

  it("announces Upload-Length when it sends a file uncompressed, and the server holds it to it", async () => {
    const csv = generatedCsv(200_000);
    const size = new TextEncoder().encode(csv).length;
    const client = new PubsetClient({ url: proxy.url, key, resumableThreshold: 1, chunkBytes: 64 * 1024 });
    proxy.uploadLengths = [];
    proxy.patches = 0;
    const created = await client.create({ name: "Plain" }, new Blob([csv]), { fileName: "plain.csv", gzip: false });
    expect(proxy.uploadLengths).toEqual([String(size)]);
    expect(proxy.patches).toBe(Math.ceil(size / (64 * 1024)));
    expect(await csvOf(created.id)).toBe(csv);
  });

  it("appends a gzip file as a resumable upload, and the one-request path stays below the threshold", async () => {
    const first = await direct.create({ name: "Two ways" }, "id,city,note\n");
    const rows = generatedCsv(2_500_000).slice("id,city,note\n".length);
    const gz = new Uint8Array(await new Response(new Blob([rows]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const client = new PubsetClient({ url: proxy.url, key, chunkBytes: 50_000 });
    proxy.patches = 0;
    await client.append(first.id, new Blob([gz]), { fileName: "rows.csv.gz", resumableThreshold: 1 });
    expect(proxy.patches).toBeGreaterThan(3);
    expect(await csvOf(first.id)).toBe("id,city,note\n" + rows);
    proxy.patches = 0;
    await client.append(first.id, "1,x,y\n");
    expect(proxy.patches).toBe(0);
  });

  it("`pubset create --resumable-above` uploads in chunks and prints the dataset", async () => {
    const csv = generatedCsv(200_000);
    const file = join(dir, "big.csv");
    await writeFile(file, csv);
    proxy.patches = 0;
    const run = await runInProcess(["create", file, "--name", "From CLI", "--resumable-above", "1000", "--json"], {
      PUBSET_URL: proxy.url,
      PUBSET_KEY_ID: key.keyId,
      PUBSET_SECRET: server.demoKey.secret,
      HOME: dir,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const created = JSON.parse(run.stdout) as { id: string; name: string };
    expect(created.name).toBe("From CLI");
    expect(proxy.patches).toBeGreaterThanOrEqual(1);
    expect(await csvOf(created.id)).toBe(csv);
  });
});
