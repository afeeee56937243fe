// Baselines for `npm run bench`, served only by the bench's own worker entry (src/bench-entry.ts),
// never by the deployed one: the same workerd gzipping a request body with its native
// CompressionStream (what ingest throughput is compared with), compressing it with the worker's
// own SegmentCompressor at a given level, or only reading it.
import { Hono } from "hono";
import { toProblem } from "../app.ts";
import type { AppEnv } from "../app-env.ts";
import { limitsFrom } from "../config.ts";
import { INFER_ALL, ingestCsv } from "../write/ingest/ingest.ts";
import { ApiError } from "../model/errors.ts";
import { SegmentCompressor } from "../wire/deflate-segment.ts";
import { PartWriter, startKinds } from "../columnar/parquet/index.ts";
import { segmentCells } from "../columnar/segment-rows.ts";
import { columnFeeds } from "../columnar/statistics/column-feed.ts";
import { createSummaries, distinctPast, encodeSummary, skipDistinctKeys } from "../columnar/statistics/table-summary.ts";
import { getVersionContent } from "../read/store.ts";
import { READ_WAYS, readSegment, type ReadWay } from "./inflate.ts";

export const BENCH_PATH = "/__bench";

export interface ByteCounts {
  inputBytes: number;
  outputBytes: number;
}

async function drainedSize(body: ReadableStream<Uint8Array>): Promise<ByteCounts> {
  let inputBytes = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    inputBytes += value.byteLength;
  }
  return { inputBytes, outputBytes: 0 };
}

async function gzippedSize(body: ReadableStream<Uint8Array>): Promise<ByteCounts> {
  let inputBytes = 0;
  let outputBytes = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      inputBytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const reader = body.pipeThrough(counter).pipeThrough(new CompressionStream("gzip")).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    outputBytes += value.byteLength;
  }
  return { inputBytes, outputBytes };
}

/** Largest body `/deflate` buffers: the bench's 10 MB CSV, with room to spare. */
const MAX_DEFLATE_BYTES = 64 * 1024 * 1024;
/** Pushed as scripts/bench/levels.ts pushes in Node, so the two columns compare. */
const DEFLATE_PUSH = 1 << 20;

async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > MAX_DEFLATE_BYTES) throw new ApiError("payload_too_large", `POST at most ${MAX_DEFLATE_BYTES} bytes.`);
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * The whole body, once received, through the storage's SegmentCompressor at `level`; `seconds`
 * times the compression alone. Local workerd's clock advances during computation (a deployed
 * isolate's would not), which is all the bench needs.
 */
async function deflatedSize(body: ReadableStream<Uint8Array>, level: number): Promise<ByteCounts & { seconds: number }> {
  const bytes = await readAll(body);
  const started = performance.now();
  const compressor = new SegmentCompressor(level, () => {});
  for (let at = 0; at < bytes.length; at += DEFLATE_PUSH) compressor.push(bytes.subarray(at, at + DEFLATE_PUSH));
  const outputBytes = compressor.finish().compressedBytes;
  return { inputBytes: bytes.length, outputBytes, seconds: (performance.now() - started) / 1000 };
}

/**
 * The body through the real ingest (scan, type, compress, R2) into a throw-away object, with
 * column types inferred (`infer`) or not looked at (`off`, the path before docs/column-types.md): what
 * inference costs, measured in the same workerd. The object is deleted afterwards.
 */
async function ingestedSize(env: Env, body: ReadableStream<Uint8Array>, typing: "infer" | "off"): Promise<ByteCounts & { seconds: number; columns: string[] }> {
  const key = `__bench/ingest/${crypto.randomUUID()}`;
  const started = performance.now();
  const ingested = await ingestCsv(body, { mode: { kind: "table" }, typing: typing === "infer" ? INFER_ALL : null, limits: limitsFrom(env), bucket: env.CONTENT, key });
  const seconds = (performance.now() - started) / 1000;
  await env.CONTENT.delete(key);
  return {
    inputBytes: ingested.stats.bytes,
    outputBytes: ingested.segment.compressedBytes,
    seconds,
    columns: ingested.schema.fields.map((field) => `${field.name}:${field.type}`),
  };
}

/**
 * A committed version's segments encoded as the twin build encodes its parts (inflated and
 * decoded from R2, one PartWriter per segment), with the statistics fed (`on`) or not (`off`),
 * nothing written: what the statistics add to the build, measured in the same workerd. With
 * `segment`, only that one (0-based), so that the bench can alternate on and off a part at a time;
 * `past` then names the columns the segments before it put past the distinct limit, as the build
 * carries them from part to part (answered as `distinctPast` for the next).
 */
async function encodedVersion(
  env: Env,
  datasetId: string,
  versionId: string,
  statistics: boolean,
  only: number | null,
  pastBefore: readonly boolean[],
): Promise<{ seconds: number; rows: number; segments: number; outputBytes: number; summaryBytes: number; distinctPast: number[] }> {
  const content = await getVersionContent(env.DB, datasetId, versionId, true);
  if (!content.version) throw new ApiError("not_found", "No such version.");
  if (only !== null && only >= content.segments.length) throw new ApiError("invalid_query", `The version has ${content.segments.length} segments.`);
  const schema = content.version.schema;
  const started = performance.now();
  let rows = 0;
  let outputBytes = 0;
  let summaryBytes = 0;
  const past = [...pastBefore];
  for (const [index, segment] of content.segments.entries()) {
    if (only !== null && index !== only) continue;
    const summary = createSummaries(schema);
    skipDistinctKeys(summary, past);
    const writer = new PartWriter(schema, startKinds(schema), statistics ? { sinks: columnFeeds(summary, schema) } : {});
    for await (const batch of segmentCells(env.CONTENT, segment, index === 0)) {
      if (!writer.addBatch(batch)) throw new ApiError("invalid_request", "The version needs wider column kinds than its schema's narrowest.");
      for (const bytes of writer.takeBytes()) outputBytes += bytes.length;
    }
    const result = writer.finish();
    if (!result.ok) throw new ApiError("invalid_request", "The version needs wider column kinds than its schema's narrowest.");
    for (const bytes of writer.takeBytes()) outputBytes += bytes.length;
    rows += result.metadata.rows;
    if (statistics) {
      summaryBytes += encodeSummary(summary).length;
      distinctPast(summary).forEach((column, i) => (past[i] ||= column));
    }
  }
  const distinctPastColumns = past.flatMap((column, i) => (column ? [i] : []));
  return { seconds: (performance.now() - started) / 1000, rows, segments: content.segments.length, outputBytes, summaryBytes, distinctPast: distinctPastColumns };
}

function requireBody(body: ReadableStream<Uint8Array> | null): ReadableStream<Uint8Array> {
  if (body === null) throw new ApiError("invalid_request", "POST the bytes to measure.");
  return body;
}

/**
 * `POST /__bench/gzip`: pipes the body through CompressionStream('gzip') and counts bytes.
 * `POST /__bench/deflate?level=N`: the body through SegmentCompressor at level N (1–9), timed.
 * `POST /__bench/discard`: only reads the body, the transport's own ceiling.
 * `POST /__bench/ingest?typing=infer|off`: the body through ingest, with or without inference.
 * `POST /__bench/parquet?dataset=&version=&statistics=on|off[&segment=N[&past=i,j]]`: a version (or one segment) encoded as its twin's parts, timed.
 * `PUT /__bench/segment`: stores the body (a segment's compressed bytes) as an R2 object; answers its key.
 * `POST /__bench/inflate?key=&way=&size=&slice=&cells=on|off`: that object read back one way (inflate.ts).
 */
export function benchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>().basePath(BENCH_PATH);
  // The cheapest route of the same worker (every middleware of the app is skipped: no D1, no R2),
  // what the cached read path is compared with.
  app.get("/bare", (c) => c.json({ ok: true }));
  app.post("/gzip", async (c) => c.json(await gzippedSize(requireBody(c.req.raw.body))));
  app.post("/deflate", async (c) => {
    const level = Number(c.req.query("level"));
    if (!Number.isInteger(level) || level < 1 || level > 9) throw new ApiError("invalid_query", "`level` must be an integer 1–9.");
    return c.json(await deflatedSize(requireBody(c.req.raw.body), level));
  });
  app.post("/discard", async (c) => c.json(await drainedSize(requireBody(c.req.raw.body))));
  app.post("/ingest", async (c) => {
    const typing = c.req.query("typing");
    if (typing !== "infer" && typing !== "off") throw new ApiError("invalid_query", "`typing` must be infer or off.");
    return c.json(await ingestedSize(c.env, requireBody(c.req.raw.body), typing));
  });
  app.post("/parquet", async (c) => {
    const statistics = c.req.query("statistics");
    const dataset = c.req.query("dataset");
    const version = c.req.query("version");
    if ((statistics !== "on" && statistics !== "off") || !dataset || !version) throw new ApiError("invalid_query", "`dataset`, `version` and `statistics=on|off` are required.");
    const segment = c.req.query("segment");
    if (segment !== undefined && !/^\d{1,6}$/.test(segment)) throw new ApiError("invalid_query", "`segment` must be a segment's index, from 0.");
    const pastText = c.req.query("past") ?? "";
    if (!/^(\d{1,5}(,\d{1,5})*)?$/.test(pastText)) throw new ApiError("invalid_query", "`past` must be a comma list of column indexes.");
    const past: boolean[] = [];
    for (const column of pastText === "" ? [] : pastText.split(",")) past[Number(column)] = true;
    return c.json(await encodedVersion(c.env, dataset, version, statistics === "on", segment === undefined ? null : Number(segment), past));
  });
  app.put("/segment", async (c) => {
    const bytes = await readAll(requireBody(c.req.raw.body));
    const key = `__bench/segments/${crypto.randomUUID()}`;
    await c.env.CONTENT.put(key, bytes);
    return c.json({ key, bytes: bytes.length });
  });
  app.post("/inflate", async (c) => {
    const key = c.req.query("key") ?? "";
    const way = c.req.query("way") as ReadWay;
    const size = Number(c.req.query("size") ?? 256 * 1024);
    const slice = Number(c.req.query("slice") ?? 1 << 20);
    const cells = c.req.query("cells") === "on";
    const pause = Number(c.req.query("pause") ?? 0);
    const crc = Number(c.req.query("crc") ?? 0);
    let offset = 0;
    const parts = (c.req.query("parts") ?? "").split(",").filter(Boolean).map((part) => {
      const [compressedBytes, rawBytes] = part.split(":").map(Number) as [number, number];
      const placed = { compressedOffset: offset, compressedBytes, rawBytes, rowCount: 0 };
      offset += compressedBytes;
      return placed;
    });
    if (!key.startsWith("__bench/segments/") || !READ_WAYS.includes(way) || !(size >= 1024) || !(slice >= 1024) || !(Number.isInteger(crc) && crc >= 0 && crc < 2 ** 32)) {
      throw new ApiError("invalid_query", `\`key\` (from PUT /segment), \`way\` (${READ_WAYS.join(", ")}), \`size\` and \`slice\` (bytes, at least 1024) are required; \`crc\` (the content's CRC-32, for the plain ways) is an unsigned 32-bit integer.`);
    }
    return c.json(await readSegment(c.env.CONTENT, key, way, size, slice, cells, pause, parts, crc));
  });
  app.onError((error) => toProblem(error));
  return app;
}
