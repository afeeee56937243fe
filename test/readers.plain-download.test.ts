// The full `.csv` download to a client that takes no gzip (docs/api.md, docs/storage-protocol.md
// "What guards the bytes read back"): the CSV's bytes read a group of parts at a time, never more
// than a group ahead of the client, and checked against the version's CRC-32 before the last
// byte, so a stored part that no longer inflates to its content fails the answer instead of
// completing it.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { INFLATE_GROUP_BYTES, inflateSegment } from "../src/storage/segment-inflate.ts";
import { crc32 } from "../src/wire/crc32.ts";
import { compressSegment, concatBytes } from "../src/wire/deflate-segment.ts";
import { gzipTrailer } from "../src/wire/gzip-join.ts";
import { partedGzipHeader } from "../src/wire/parted-gzip-header.ts";
import { signRequest } from "../src/wire/sign.ts";
import { collectionPart, csvPart, ORIGIN, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { mulberry32, randomInt } from "./helpers/random.ts";
import { gatedR2, readAheadBound } from "./helpers/served-segment.ts";
import { NO_AUTO_COMPACTION, signedFetch } from "./helpers/storage.ts";

const encoder = new TextEncoder();
const VIEW_BYTES = 64 * 1024;
const pause = () => new Promise((resolve) => setTimeout(resolve, 1));

/** Data rows from `from`, about `bytes` of them, each ending in a line break. */
function rows(random: () => number, from: number, bytes: number): string {
  let text = "";
  for (let i = from; text.length < bytes; i++) text += `${i},${randomInt(random, 0, 1e9)},"word ${randomInt(random, 0, 5000)}, ${"y".repeat(randomInt(random, 0, 40))}"\n`;
  return text;
}

/** A parted gzip of `pieces` (each compressed alone, one part each), as our client uploads it. */
function partedGzip(pieces: readonly string[]): Uint8Array {
  const raw = pieces.map((p) => encoder.encode(p));
  const compressed = raw.map((p) => compressSegment(p, 3));
  const all = concatBytes(raw);
  return concatBytes([partedGzipHeader(compressed.map((c) => ({ compressedBytes: c.compressedBytes, rawBytes: c.rawBytes }))), ...compressed.map((c) => c.data), gzipTrailer(crc32(all), all.length)]);
}

interface StoredPart {
  key: string;
  offset: number;
  compressed: number;
  raw: number;
}

/** A version's segments in order, each its key and parts (one spanning the object when it has no part rows). */
async function storedParts(versionId: string): Promise<StoredPart[][]> {
  const { results } = await env.DB.prepare(
    `SELECT s.key, COALESCE(p.compressed_offset, 0) AS offset, COALESCE(p.compressed_bytes, s.compressed_bytes) AS compressed,
            COALESCE(p.raw_bytes, s.raw_bytes) AS raw
     FROM version_segments vs JOIN segments s ON s.key = vs.segment_key LEFT JOIN segment_parts p ON p.segment_key = s.key
     WHERE vs.version_id = ? ORDER BY vs.position, p.part`,
  )
    .bind(versionId)
    .all<StoredPart>();
  const segments: StoredPart[][] = [];
  for (const part of results) {
    const last = segments.at(-1);
    if (last?.[0]?.key === part.key) last.push(part);
    else segments.push([part]);
  }
  return segments;
}

/** A private dataset of three segments: a created one of parts of every size, then two appends. */
async function version(seed: number): Promise<{ key: TestKey; id: string; version: string; path: string; csv: Uint8Array }> {
  const key = await createKey("team-plain", `plain-${seed}`);
  const random = mulberry32(seed);
  const pieces = ["id,n,text\n" + rows(random, 0, 60), rows(random, 1, 300_000), rows(random, 20_000, 700_000), rows(random, 40_000, 3_000_000), rows(random, 140_000, 50_000), rows(random, 150_000, 10)];
  const created = await write("POST", "/v1/dataset", key, [collectionPart({ name: "plain", visibility: "private" }), csvPart(partedGzip(pieces), "data.csv.gz", "application/gzip")]);
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const tiny = "200000,1,tail\n";
  const medium = rows(random, 200_001, 1_500_000);
  let latest = "";
  for (const appended of [tiny, medium]) {
    const response = await signedFetch(NO_AUTO_COMPACTION, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(appended)] });
    expect(response.status).toBe(201);
    latest = ((await response.json()) as { version: string }).version;
  }
  const csv = encoder.encode(pieces.join("") + tiny + medium);
  return { key, id, version: latest, path: `/v1/dataset/${id}/${latest}/data.csv`, csv };
}

/** The worker's answer to a signed GET with `workerEnv`, its body left for the test to read. */
async function signedGet(workerEnv: Env, path: string, key: TestKey, headers: Record<string, string> = {}): Promise<Response> {
  const url = ORIGIN + path;
  const signed = await signRequest({ method: "GET", url, headers: new Headers(headers) }, key);
  return worker.fetch(new Request(url, { headers: signed }), workerEnv, createExecutionContext());
}

/** What a client reads of `response`'s body before it ends or fails. */
async function readAll(response: Response, each: (taken: number) => void | Promise<void> = () => {}): Promise<{ bytes: Uint8Array; failed: unknown }> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let taken = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: concatBytes(chunks), failed: null };
      chunks.push(value);
      taken += value.length;
      await each(taken);
    }
  } catch (error: unknown) {
    return { bytes: concatBytes(chunks), failed: error };
  }
}

describe("the plain .csv download", () => {
  it("is the CSV byte for byte across segments and parts of every size; ETag, 304 and HEAD as before", async () => {
    const { key, version: versionId, path, csv } = await version(1);
    const segments = await storedParts(versionId);
    expect(segments.length).toBe(3);
    const sizes = segments.flat().map((p) => p.raw);
    expect(Math.min(...sizes)).toBeLessThan(100);
    expect(Math.max(...sizes)).toBeGreaterThan(2 * INFLATE_GROUP_BYTES);
    expect(segments[2]!.length).toBeGreaterThan(1);

    const response = await send("GET", path, { key, headers: { "Accept-Encoding": "identity" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("content-length")).toBe(String(csv.length));
    expect(response.headers.get("etag")).toBe(`"${versionId}.csv"`);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(csv);

    const notModified = await send("GET", path, { key, headers: { "Accept-Encoding": "identity", "If-None-Match": `"${versionId}.csv"` } });
    expect(notModified.status).toBe(304);
    expect((await notModified.arrayBuffer()).byteLength).toBe(0);
    const head = await send("HEAD", path, { key, headers: { "Accept-Encoding": "identity" } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(csv.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("reads R2 no further than one group of parts ahead of a slow client, one read per segment", async () => {
    const { key, version: versionId, path, csv } = await version(2);
    const segments = await storedParts(versionId);
    const gated = gatedR2(env.CONTENT);
    const response = await signedGet({ ...env, CONTENT: gated.bucket }, path, key, { "Accept-Encoding": "identity" });
    expect(response.status).toBe(200);
    const bounds = segments.map((parts) => readAheadBound(parts.map((p) => ({ compressedOffset: p.offset, compressedBytes: p.compressed, rawBytes: p.raw, rowCount: 0 }))));
    const rawStarts = segments.map((_, i) => segments.slice(0, i).flat().reduce((n, p) => n + p.raw, 0));
    const { bytes, failed } = await readAll(response, async (taken) => {
      for (const [i, read] of gated.reads.entries()) {
        // The reader is given 64 KiB views (src/read/csv-range.ts); the client may hold part of one.
        const inSegment = taken - rawStarts[i]!;
        const allowed = inSegment > 0 ? bounds[i]!(Math.ceil(inSegment / VIEW_BYTES) * VIEW_BYTES) : 0;
        expect(read.pulled(), `segment ${i} after ${taken} bytes`).toBeLessThanOrEqual(allowed);
      }
      await pause();
    });
    expect(failed).toBeNull();
    expect(bytes).toEqual(csv);
    expect(gated.reads.map((r) => [r.key, r.offset])).toEqual(segments.map((parts) => [parts[0]!.key, 0]));
  });
});

/** The content `part` (raw DEFLATE ended by a sync flush) inflates to, or the inflate's failure. */
async function inflated(part: Uint8Array): Promise<Uint8Array | "fails"> {
  try {
    return new Uint8Array(await new Response(inflateSegment(new Response(part).body!)).arrayBuffer());
  } catch {
    return "fails";
  }
}

describe("a stored part corrupted after its commit", () => {
  it("fails the plain download before its last byte, whether the inflate, the part's length or only the CRC-32 catches it", async () => {
    const { key, version: versionId, path, csv } = await version(3);
    const part = (await storedParts(versionId))[0]![1]!;
    const object = new Uint8Array(await (await env.CONTENT.get(part.key))!.arrayBuffer());
    const original = object.subarray(part.offset, part.offset + part.compressed);
    const want = await inflated(original);
    // Single-bit flips through the part, each sorted by what a reader of the part alone sees.
    const found = new Map<string, number>();
    const tally = { inflate: 0, length: 0, content: 0, same: 0 };
    for (let at = 0, tried = 0; tried < 200 && at < original.length - 8; at += 997, tried++) {
      const corrupted = original.slice();
      corrupted[at]! ^= 1 << (tried % 8);
      const got = await inflated(corrupted);
      const kind = got === "fails" ? "inflate" : want !== "fails" && got.length !== want.length ? "length" : got.every((b, i) => b === (want as Uint8Array)[i]) ? "same" : "content";
      tally[kind]++;
      if (!found.has(kind)) found.set(kind, at * 8 + (tried % 8));
    }
    console.log(`single-bit flips in a ${original.length}-byte part: ${JSON.stringify(tally)}`);
    // "content" is the case only the CRC-32 catches: a flip that inflates to the part's length, other bytes.
    expect([...found.keys()].sort()).toEqual(["content", "inflate", "length"]);
    for (const kind of ["inflate", "length", "content"]) {
      const flip = found.get(kind);
      if (flip === undefined) continue;
      const corrupted = object.slice();
      corrupted[part.offset + Math.floor(flip / 8)]! ^= 1 << flip % 8;
      await env.CONTENT.put(part.key, corrupted);
      const response = await send("GET", path, { key, headers: { "Accept-Encoding": "identity" } });
      expect(response.status, kind).toBe(200);
      expect(response.headers.get("content-length")).toBe(String(csv.length));
      const { bytes, failed } = await readAll(response);
      expect(failed, kind).not.toBeNull();
      expect(bytes.length, kind).toBeLessThan(csv.length);
      console.log(`${kind}: the body fails after ${bytes.length} of ${csv.length} bytes`);
    }
    await env.CONTENT.put(part.key, object);
    const restored = await send("GET", path, { key, headers: { "Accept-Encoding": "identity" } });
    expect(new Uint8Array(await restored.arrayBuffer())).toEqual(csv);
  });
});
