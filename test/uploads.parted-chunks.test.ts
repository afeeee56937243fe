// Resumable gzip uploads in the parted format (issue 12, docs/resumable-uploads.md): each chunk
// that is a parted gzip member starting at a record start is validated and stored as sent, one
// segment per chunk; a chunk that breaks the format, or follows a carried partial record, goes
// through the recompression path, and the content ends the same either way.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { partedChunks, type PartedChunk } from "../src/client/parted-chunks.ts";
import { limitsFrom } from "../src/config.ts";
import { tooLarge } from "../src/uploads/chunk-body.ts";
import { ingestUploadChunk } from "../src/uploads/chunk-ingest.ts";
import { readPartedGzipHeader, partedGzipHeader } from "../src/wire/parted-gzip-header.ts";
import { crc32 } from "../src/wire/crc32.ts";
import { compressSegment } from "../src/wire/deflate-segment.ts";
import { gzipTrailer } from "../src/wire/gzip-join.ts";
import { createDataset, download, expectProblem, gunzipText, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { mulberry32, randomCsvFile, randomInt } from "./helpers/random.ts";
import { patchChunk, startUpload } from "./helpers/uploads.ts";

const TEAM = "team-parted-chunks";
const encoder = new TextEncoder();

function table(rows: number, from = 0): string {
  let text = "";
  for (let i = from; i < from + rows; i++) text += `${i},"name ${i % 97}, quoted","line ${i % 13}\nwith a break"\n`;
  return text;
}

async function chunksOf(csv: string | Uint8Array, chunkRawBytes: number): Promise<PartedChunk[]> {
  const out: PartedChunk[] = [];
  for await (const chunk of partedChunks(new Response(csv).body!, 3, chunkRawBytes)) out.push(chunk);
  return out;
}

/** The parts of a parted member: what the server stores when it keeps the chunk as sent. */
function partsOf(member: Uint8Array): Uint8Array {
  const header = readPartedGzipHeader(member);
  if (header.status !== "parted") throw new Error("not a parted gzip");
  return member.subarray(header.headerBytes, member.length - 10);
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

async function inflate(member: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([member]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

/** Sends every chunk at its offset; the last one completes the upload. */
async function sendAll(key: TestKey, location: string, chunks: Uint8Array[]): Promise<Response> {
  let offset = 0;
  for (const [i, chunk] of chunks.entries()) {
    const last = i === chunks.length - 1;
    const response = await patchChunk(key, location, offset, chunk, last);
    if (last) return response;
    if (response.status !== 204) throw new Error(`chunk ${i}: ${response.status} ${await response.text()}`);
    offset += chunk.length;
  }
  throw new Error("no chunks");
}

/** Each stored segment's R2 bytes, in the version's order. */
async function storedSegments(versionId: string): Promise<Uint8Array[]> {
  const { results } = await env.DB.prepare("SELECT segment_key FROM version_segments WHERE version_id = ? ORDER BY position").bind(versionId).all<{ segment_key: string }>();
  return Promise.all(results.map(async (row) => new Uint8Array(await (await env.CONTENT.get(row.segment_key))!.arrayBuffer())));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Whether `needle` occurs in `hay` byte for byte. The chunks of a small upload are merged into
 * one segment at its commit, by concatenation (docs/storage-protocol.md, invariant 6), so a chunk
 * stored as sent is a run of the version's bytes.
 */
function holds(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let at = 0; at + needle.length <= hay.length; at++) {
    for (let i = 0; i < needle.length; i++) if (hay[at + i] !== needle[i]) continue outer;
    return true;
  }
  return false;
}

function joined(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function observed(key: TestKey, id: string) {
  const record = await send("GET", `/v1/dataset/${id}/latest`, { key });
  const source = /<([^>]+)>; rel="enclosure"/.exec(record.headers.get("link") ?? "")?.[1];
  const csv = await gunzipText(await download(source!, key));
  const rows = await (await send("GET", `/v1/dataset/${id}/latest/rows?limit=1000`, { key })).json();
  return { csv, rows };
}

describe("resumable upload: parted gzip chunks", () => {
  it("stores every parted chunk as sent, merged into one segment at the commit, and reads back as the CSV", async () => {
    const key = await createKey(TEAM, "as-sent");
    const csv = "id,name,note\n" + table(1500);
    const chunks = await chunksOf(csv, 24_000);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Parted" }, fileName: "p.csv.gz", contentType: "application/gzip" });
    const response = await sendAll(key, location, chunks.map((c) => c.bytes));
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; version: string };
    const segments = await storedSegments(created.version);
    // One segment, as a one-request upload of the file has: the chunks' parts, joined as sent.
    expect(segments.length).toBe(1);
    expect(sameBytes(segments[0]!, joined(chunks.map((chunk) => partsOf(chunk.bytes))))).toBe(true);
    const one = await createDataset(key, csv, { name: "One" }, "p.csv");
    expect(await observed(key, created.id)).toEqual(await observed(key, one.id));
    const rows = (await (await send("GET", `/v1/dataset/${created.id}/latest/rows?offset=1200&limit=1`, { key })).json()) as { rows: unknown[][] };
    expect(rows.rows[0]?.[0]).toBe(1200); // typed across chunks: the id column is an integer
  });

  it("appends parted chunks to a dataset, held to its header", async () => {
    const key = await createKey(TEAM, "append");
    const created = await createDataset(key, "id,name,note\n" + table(3), { name: "Grows" });
    const chunks = await chunksOf(table(400, 3), 8_000);
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, { fileName: "more.csv.gz", contentType: "application/gzip" });
    expect((await sendAll(key, location, chunks.map((c) => c.bytes))).status).toBe(201);
    expect((await observed(key, created.id)).csv).toBe("id,name,note\n" + table(403));
  });

  it("ends byte-identical to a one-request upload when parted, plain and mid-record chunks mix", { timeout: 120_000 }, async () => {
    const key = await createKey(TEAM, "mixed");
    let storedAsSent = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const random = mulberry32(seed);
      const csv = randomCsvFile(random, 60);
      const parted = await chunksOf(csv, randomInt(random, 40, 400));
      const sent: Uint8Array[] = [];
      for (let i = 0; i < parted.length; i++) {
        const roll = random();
        if (roll < 0.2 && i + 1 < parted.length) {
          // Two chunks' content cut at a random byte into two plain members: a record is carried.
          const raw = new Uint8Array([...(await inflate(parted[i]!.bytes)), ...(await inflate(parted[i + 1]!.bytes))]);
          const cut = randomInt(random, 1, Math.max(1, raw.length - 1));
          sent.push(await gzip(raw.subarray(0, cut)), await gzip(raw.subarray(cut)));
          i += 1;
        } else if (roll < 0.35) {
          sent.push(await gzip(await inflate(parted[i]!.bytes)));
        } else {
          sent.push(parted[i]!.bytes);
        }
      }
      const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: `Mixed ${seed}` }, fileName: "m.csv.gz", contentType: "application/gzip" });
      const response = await sendAll(key, location, sent);
      expect(response.status, `seed ${seed}`).toBe(201);
      const created = (await response.json()) as { id: string; version: string };
      const one = await createDataset(key, csv, { name: `One ${seed}` }, "m.csv");
      expect(await observed(key, created.id), `seed ${seed}`).toEqual(await observed(key, one.id));
      const parts = parted.map((c) => partsOf(c.bytes));
      const stored = joined(await storedSegments(created.version));
      storedAsSent += parts.filter((p) => holds(stored, p)).length;
    }
    // The parted path was taken, not only the recompression path.
    expect(storedAsSent).toBeGreaterThan(10);
  });

  it("fails the upload on a CSV error in a parted chunk, with the row number in the whole file", async () => {
    const key = await createKey(TEAM, "error");
    const csv = "id,name,note\n" + table(300) + "1,2\n" + table(100, 300);
    const chunks = await chunksOf(csv, 6_000);
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Broken" }, fileName: "b.csv.gz", contentType: "application/gzip" });
    let offset = 0;
    let problem: Record<string, unknown> | null = null;
    for (const chunk of chunks) {
      const response = await patchChunk(key, location, offset, chunk.bytes, false);
      if (response.status !== 204) {
        problem = await expectProblem(response, 422, "invalid_csv");
        break;
      }
      offset += chunk.bytes.length;
    }
    expect(problem?.row).toBe(302);
    // The upload failed as a whole: every later request gets the same problem.
    await expectProblem(await patchChunk(key, location, offset, chunks.at(-1)!.bytes, true), 422, "invalid_csv");
  });
});

describe("resumable upload: a parted chunk that breaks its promises is never stored as sent", () => {
  async function upload(key: TestKey, chunks: Uint8Array[]) {
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Forged" }, fileName: "f.csv.gz", contentType: "application/gzip" });
    const response = await sendAll(key, location, chunks);
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; version: string };
    return { created, segments: await storedSegments(created.version) };
  }

  /** A parted member of `pieces`, each compressed alone; `edit` may forge its index. */
  function handMade(pieces: string[], edit: (index: { compressedBytes: number; rawBytes: number }[]) => void = () => {}): Uint8Array {
    const compressed = pieces.map((p) => compressSegment(encoder.encode(p), 3));
    const index = compressed.map((c) => ({ compressedBytes: c.compressedBytes, rawBytes: c.rawBytes }));
    edit(index);
    const raw = encoder.encode(pieces.join(""));
    return new Uint8Array([...partedGzipHeader(index), ...compressed.flatMap((c) => [...c.data]), ...gzipTrailer(crc32(raw), raw.length)]);
  }

  it("recompresses a chunk before the last that ends inside a record, and carries the record", async () => {
    const key = await createKey(TEAM, "mid-record");
    const first = handMade(["id,name,note\n", '0,"a","b\nc"\n1,"d'], () => {});
    const second = handMade(['","e"\n2,"f","g"\n']);
    const { created, segments } = await upload(key, [first, second]);
    expect((await observed(key, created.id)).csv).toBe('id,name,note\n0,"a","b\nc"\n1,"d","e"\n2,"f","g"\n');
    // The second chunk followed a carried record, so it was recompressed too.
    expect(segments.some((s) => holds(s, partsOf(first)) || holds(s, partsOf(second)))).toBe(false);
  });

  it("recompresses a chunk whose index declares wrong lengths", async () => {
    const key = await createKey(TEAM, "lengths");
    const good = handMade(["id,name,note\n", "0,a,b\n"]);
    const forged = handMade(["1,c,d\n", "2,e,f\n"], (index) => {
      index[0]!.rawBytes += 1;
      index[1]!.rawBytes -= 1;
    });
    const { created, segments } = await upload(key, [good, forged]);
    expect((await observed(key, created.id)).csv).toBe("id,name,note\n0,a,b\n1,c,d\n2,e,f\n");
    // The good chunk as sent starts the version's one segment; the forged one was recompressed.
    expect(segments.length).toBe(1);
    expect(sameBytes(segments[0]!.subarray(0, partsOf(good).length), partsOf(good))).toBe(true);
    expect(holds(segments[0]!, partsOf(forged))).toBe(false);
  });

  it("bounds a parted chunk's raw bytes by what the upload may still take, storing nothing", async () => {
    const limits = limitsFrom(env);
    const [chunk] = await chunksOf("id,name,note\n" + table(200), 1 << 20);
    const reader = { objects: async () => (await env.CONTENT.list({ prefix: "datasets/chunk-limit/" })).objects.length };
    const problem = await ingestUploadChunk(new Response(chunk!.bytes).body!, {
      gzip: true,
      final: false,
      carry: new Uint8Array(0),
      resume: null,
      rawRoom: 1000,
      tooLarge: () => tooLarge(limits.maxResumableBytes),
      maxCarryBytes: 1 << 20,
      mode: { kind: "table" },
      typing: null,
      limits,
      bucket: env.CONTENT,
      reserve: async () => `datasets/chunk-limit/${crypto.randomUUID()}`,
    }).then(
      () => null,
      (error: unknown) => error as { code: string; extensions: { limit: string } },
    );
    expect(problem?.code).toBe("payload_too_large");
    expect(problem?.extensions.limit).toBe("MAX_RESUMABLE_BYTES");
    expect(await reader.objects()).toBe(0);
  });
});

