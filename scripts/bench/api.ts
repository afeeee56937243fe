// The pubset calls the bench times, each one signed, bounded by a timeout that grows with the
// bytes it moves, and checked for the status the API promises (docs/api.md).
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import type { SigningKey } from "../../src/wire/sign.ts";
import { BodyDecoder } from "./body-decoder.ts";
import { collectionMultipart, contentDigest, datasetMultipart, fileBody, type RequestBody } from "./body.ts";
import { exchange, expectJson, type Exchange } from "./http.ts";
import { explained, type ServerLog } from "./server-log.ts";
import { signedHeaders } from "./signing.ts";
import { MB } from "./stats.ts";

export interface Client {
  origin: string;
  key: SigningKey;
  /** wrangler's log, quoted in the error when a request gets no answer. */
  log?: ServerLog;
}

/** 2 minutes plus 2 s per MB moved: generous, yet a hung request still ends the bench. */
function timeoutFor(bytes: number): number {
  return 120_000 + Math.ceil(bytes / MB) * 2_000;
}

async function signedSend(client: Client, method: string, path: string, body: RequestBody): Promise<Exchange> {
  const url = `${client.origin}${path}`;
  const digest = await contentDigest(body);
  const headers = await signedHeaders(method, url, client.key, { "content-type": body.contentType }, digest);
  return explained(client.log, () => exchange({ method, url, headers, body, timeoutMs: timeoutFor(body.length), keepBody: true }));
}

export interface Created {
  id: string;
  version: string;
  source: string;
  seconds: number;
}

/**
 * POST /v1/dataset with the CSV file streamed from disk (private, so nothing is cached); a
 * `.gz` path is sent as `application/gzip`.
 */
export async function createDataset(client: Client, csvPath: string, name: string): Promise<Created> {
  const body = datasetMultipart({ name, visibility: "private" }, { path: csvPath });
  const result = await signedSend(client, "POST", "/v1/dataset", body);
  const record = expectJson<{ id: string; version: string; source: string }>(result, 201, `create ${name}`);
  return { id: record.id, version: record.version, source: record.source, seconds: result.seconds };
}

/** POST /v1/dataset/:id with data rows only; returns the new version and the time taken. */
export async function appendRows(client: Client, id: string, rows: Uint8Array): Promise<{ version: string; seconds: number }> {
  const body = datasetMultipart(null, { bytes: rows, fileName: "rows.csv" });
  const result = await signedSend(client, "POST", `/v1/dataset/${id}`, body);
  const record = expectJson<{ version: string }>(result, 201, `append to ${id}`);
  return { version: record.version, seconds: result.seconds };
}

/** PUT /v1/dataset/:id with only a collection part (a metadata or schema-only update). */
export async function updateCollection(client: Client, id: string, collection: object): Promise<{ version: string; seconds: number }> {
  const result = await signedSend(client, "PUT", `/v1/dataset/${id}`, collectionMultipart(collection));
  const record = expectJson<{ version: string }>(result, 200, `update ${id}`);
  return { version: record.version, seconds: result.seconds };
}

/**
 * The bench-only ingest (src/bench/routes.ts): the file through the real scan, compression and
 * R2 write, with the columns' types inferred or not; `seconds` is timed inside the worker.
 */
export async function benchIngest(client: Client, typing: "infer" | "off", csvPath: string): Promise<{ seconds: number; inputBytes: number; columns: string[] }> {
  const body = fileBody(csvPath, "text/csv");
  const url = `${client.origin}/__bench/ingest?typing=${typing}`;
  const result = await explained(client.log, () => exchange({ method: "POST", url, headers: new Headers(), body, timeoutMs: timeoutFor(body.length), keepBody: true }));
  const counts = expectJson<{ inputBytes: number; seconds: number; columns: string[] }>(result, 200, `POST /__bench/ingest?typing=${typing}`);
  if (!(counts.seconds > 0)) throw new Error("ingest: workerd's clock did not advance during the work");
  return counts;
}

/**
 * A bench-only endpoint (src/bench/routes.ts, served by src/bench-entry.ts): the same bytes
 * through workerd's CompressionStream('gzip'), through the worker's own SegmentCompressor at
 * `level` (`deflate`, which reports the compression's own time), or (`discard`) only read.
 */
export async function benchBaseline(
  client: Client,
  endpoint: "gzip" | "discard" | { deflate: number },
  csvPath: string,
): Promise<{ seconds: number; inputBytes: number; outputBytes: number }> {
  const body = fileBody(csvPath, "text/csv");
  const path = typeof endpoint === "string" ? `/__bench/${endpoint}` : `/__bench/deflate?level=${endpoint.deflate}`;
  const url = `${client.origin}${path}`;
  const result = await explained(client.log, () =>
    exchange({ method: "POST", url, headers: new Headers(), body, timeoutMs: timeoutFor(body.length), keepBody: true }),
  );
  const counts = expectJson<{ inputBytes: number; outputBytes: number; seconds?: number }>(result, 200, `POST ${path} (is the bench entry served?)`);
  if (counts.inputBytes !== body.length) throw new Error(`baseline read ${counts.inputBytes} of ${body.length} bytes`);
  if (counts.seconds !== undefined && !(counts.seconds > 0)) throw new Error(`${path}: workerd's clock did not advance during the work`);
  // `deflate` times its compression itself (transport excluded); the others are timed whole.
  return { seconds: counts.seconds ?? result.seconds, inputBytes: counts.inputBytes, outputBytes: counts.outputBytes };
}

export interface Downloaded {
  /** To the last byte received. */
  seconds: number;
  /** To the last byte decoded (Node's zlib inflates on its thread pool, alongside the transfer). */
  decodedSeconds: number;
  /** Bytes on the wire. */
  bytes: number;
  /** Bytes after gunzip. */
  decodedBytes: number;
  contentEncoding: string;
  /** sha-256 (hex) of the decoded bytes. */
  sha256: string;
}

/**
 * A signed GET of a file path, gunzipped and hashed as it arrives, like a browser or
 * `curl --compressed` would for `Content-Encoding: gzip`. `gzipFile` also gunzips a `.gz`
 * file's own bytes, to check them against the upload.
 */
export async function download(client: Client, path: string, expectedBytes: number, gzipFile: boolean): Promise<Downloaded> {
  const url = `${client.origin}${path}`;
  const headers = await signedHeaders("GET", url, client.key, { "accept-encoding": "gzip" });
  const decoder = new BodyDecoder();
  const started = performance.now();
  const result = await explained(client.log, () =>
    exchange({
      method: "GET",
      url,
      headers,
      timeoutMs: timeoutFor(expectedBytes),
      onResponse: (response) => decoder.start(gzipFile ? "gzip" : response["content-encoding"]),
      onChunk: (chunk) => decoder.write(chunk),
    }),
  );
  if (result.status !== 200) throw new Error(`GET ${path}: HTTP ${result.status}`);
  const sha256 = await decoder.finish();
  const contentLength = Number(result.headers["content-length"] ?? Number.NaN);
  if (contentLength !== result.bodyBytes) throw new Error(`GET ${path}: got ${result.bodyBytes} bytes, Content-Length ${contentLength}`);
  return {
    seconds: result.seconds,
    decodedSeconds: (performance.now() - started) / 1000,
    bytes: result.bodyBytes,
    decodedBytes: decoder.decodedBytes,
    contentEncoding: result.headers["content-encoding"] ?? "none",
    sha256,
  };
}

/** A signed `GET …/latest/rows` window; the total tells the bench where the last page starts. */
export async function readRows(client: Client, id: string, offset: number, limit: number): Promise<{ seconds: number; total: number; rows: number }> {
  const url = `${client.origin}/v1/dataset/${id}/latest/rows?offset=${offset}&limit=${limit}`;
  const headers = await signedHeaders("GET", url, client.key);
  const result = await explained(client.log, () => exchange({ method: "GET", url, headers, timeoutMs: timeoutFor(0), keepBody: true }));
  const page = expectJson<{ total: number; rows: unknown[] }>(result, 200, `rows of ${id} at ${offset}`);
  return { seconds: result.seconds, total: page.total, rows: page.rows.length };
}

/** sha-256 of a file, to check a downloaded CSV against what was uploaded. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
