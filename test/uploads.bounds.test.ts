// The bounds on a resumable upload's chunks (outside review, issue 27 item 4; docs/resumable-uploads.md,
// "Chunk bounds"): a chunk before the last carries at least MIN_UPLOAD_CHUNK_BYTES, an
// upload takes at most MAX_UPLOAD_CHUNKS, both refused with 413 and changing nothing; and a
// version committed from many small chunks has the segments of a one-request upload, while the
// upload's row stays the same size however many chunks land. The test config lowers the minimum
// to one byte (vitest.config.ts); these tests hand the worker the bounds they test.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PubsetClient } from "../src/client/index.ts";
import { partedChunks } from "../src/client/parted-chunks.ts";
import { limitsFrom } from "../src/config.ts";
import worker from "../src/index.ts";
import { createDataset, download, expectProblem, gunzipText, ORIGIN, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { patchChunk, signedPatch, startUpload, uploadOffset } from "./helpers/uploads.ts";

const TEAM = "team-upload-bounds";
const encoder = new TextEncoder();
const PRODUCTION = { MIN_UPLOAD_CHUNK_BYTES: "65536", MAX_UPLOAD_CHUNKS: "100000" };

async function patchWith(vars: Record<string, string>, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** A body of unknown length (no Content-Length): only the bytes themselves tell its size. */
function streamed(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

function rows(from: number, count: number): string {
  let text = "";
  for (let i = from; i < from + count; i++) text += `${i},city ${i},${(i * 7) % 1000}\n`;
  return text;
}

async function csvOf(key: TestKey, id: string): Promise<string> {
  const record = await send("GET", `/v1/dataset/${id}/latest`, { key });
  const source = /<([^>]+)>; rel="enclosure"/.exec(record.headers.get("link") ?? "")?.[1];
  return gunzipText(await download(source!, key));
}

async function segmentCount(versionId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM version_segments WHERE version_id = ?1").bind(versionId).first<{ n: number }>();
  return row?.n ?? 0;
}

/** The compressed size of each of the version's segments, in order. */
async function segmentSizes(versionId: string): Promise<number[]> {
  const { results } = await env.DB.prepare(
    "SELECT s.compressed_bytes AS bytes FROM version_segments v JOIN segments s ON s.key = v.segment_key WHERE v.version_id = ?1 ORDER BY v.position",
  )
    .bind(versionId)
    .all<{ bytes: number }>();
  return results.map((row) => row.bytes);
}

/** What one upload keeps in D1: its row's variable columns, and its listed segments. */
async function uploadState(location: string): Promise<{ rowBytes: number; listed: number }> {
  const id = location.split("/").pop();
  const row = await env.DB.prepare("SELECT LENGTH(progress) + IFNULL(LENGTH(carry), 0) AS bytes FROM uploads WHERE id = ?1").bind(id).first<{ bytes: number }>();
  const listed = await env.DB.prepare("SELECT COUNT(*) AS n FROM upload_segments WHERE upload_id = ?1").bind(id).first<{ n: number }>();
  return { rowBytes: row?.bytes ?? 0, listed: listed?.n ?? 0 };
}

describe("resumable upload: the smallest chunk", () => {
  it("refuses a chunk before the last under the minimum with 413 and the limit; nothing changes", async () => {
    const key = await createKey(TEAM, "small");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Small" } });
    const small = encoder.encode("id,city,n\n1,Oslo,2\n");
    for (const body of [small, streamed(small)]) {
      const response = await patchWith(PRODUCTION, await signedPatch(key, location, 0, small, false, body));
      const problem = await expectProblem(response, 413, "payload_too_large");
      expect(problem.limit).toBe("MIN_UPLOAD_CHUNK_BYTES");
      expect(problem.min).toBe(65536);
      expect(problem.detail).toMatch(/65536/);
      expect(response.headers.get("upload-limit")).toMatch(/min-append-size=65536/);
      expect(await uploadOffset(key, location)).toBe(0);
    }
    // A chunk of the minimum lands; the last chunk may be as small as it likes.
    const first = encoder.encode("id,city,n\n" + rows(0, 4000)).subarray(0, 65536);
    expect((await patchWith(PRODUCTION, await signedPatch(key, location, 0, first, false))).status).toBe(204);
    const rest = encoder.encode(("id,city,n\n" + rows(0, 4000)).slice(0)).subarray(65536);
    const last = await patchWith(PRODUCTION, await signedPatch(key, location, 65536, rest, true));
    expect(last.status).toBe(201);
    const created = (await last.json()) as { id: string };
    expect(await csvOf(key, created.id)).toBe("id,city,n\n" + rows(0, 4000));
  });

  it("announces min-append-size in Upload-Limit", async () => {
    const response = await patchWith(PRODUCTION, new Request("https://pubset.test/v1/dataset", { method: "OPTIONS" }));
    expect(response.headers.get("upload-limit")).toMatch(/min-append-size=65536/);
  });
});

describe("resumable upload: the most chunks", () => {
  // Five chunks of at least 4 bytes hold 16 bytes at most, so the fifth must be the last.
  const FEW = { MIN_UPLOAD_CHUNK_BYTES: "4", MAX_RESUMABLE_BYTES: "16", MAX_UPLOAD_CHUNKS: "5" };

  it("takes at most MAX_UPLOAD_CHUNKS, the last included; a chunk past them is refused with 413", async () => {
    const key = await createKey(TEAM, "many");
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Many" } });
    const pieces = ["a,b\n", "1,2\n", "3,4\n", "5,6\n"];
    let offset = 0;
    for (const piece of pieces) {
      expect((await patchWith(FEW, await signedPatch(key, location, offset, encoder.encode(piece), false))).status).toBe(204);
      offset += piece.length;
    }
    const empty = new Uint8Array(0);
    const refused = await patchWith(FEW, await signedPatch(key, location, offset, encoder.encode("7,8\n"), false));
    const problem = await expectProblem(refused, 413, "payload_too_large");
    expect(problem.limit).toBe("MAX_UPLOAD_CHUNKS");
    expect(problem.max).toBe(5);
    expect(refused.headers.get("upload-limit")).toBeTruthy();
    expect(await uploadOffset(key, location)).toBe(offset);
    const last = await patchWith(FEW, await signedPatch(key, location, offset, empty, true));
    expect(last.status).toBe(201);
  });

  it("never lets MAX_UPLOAD_CHUNKS strand an upload whose chunks keep to the minimum", () => {
    const limits = limitsFrom({ MIN_UPLOAD_CHUNK_BYTES: "65536", MAX_RESUMABLE_BYTES: String(5 * 1024 ** 3), MAX_UPLOAD_CHUNKS: "10" });
    expect(limits.maxUploadChunks).toBe(5 * 16 * 1024 + 1);
    expect(limitsFrom({}).maxUploadChunks).toBe(100_000);
    expect(limitsFrom({}).minUploadChunkBytes).toBe(65536);
  });
});

describe("resumable upload: many small chunks", () => {
  it("commits one-row chunks as one segment, like a one-request upload, with the upload's row not growing", { timeout: 120_000 }, async () => {
    const key = await createKey(TEAM, "trickle");
    const header = "id,city,n\n";
    const chunks = [header, ...Array.from({ length: 400 }, (_, i) => rows(i, 1))];
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Trickle" } });
    let offset = 0;
    let most = 0;
    let first = 0;
    for (let i = 0; i < chunks.length; i++) {
      expect((await patchChunk(key, location, offset, chunks[i]!, false)).status).toBe(204);
      offset += chunks[i]!.length;
      const state = await uploadState(location);
      if (i === 10) first = state.rowBytes;
      most = Math.max(most, state.listed);
      if (i > 10) expect(state.rowBytes).toBeLessThanOrEqual(first + 16);
    }
    // The tiered merges keep the list short while the chunks arrive: a few segments per size
    // tier (tiers grow ×5), never one per chunk.
    expect(most).toBeLessThanOrEqual(16);
    const last = await patchChunk(key, location, offset, "", true);
    expect(last.status).toBe(201);
    const created = (await last.json()) as { id: string; version: string };
    const csv = chunks.join("");
    expect(await csvOf(key, created.id)).toBe(csv);
    const one = await createDataset(key, csv, { name: "Trickle in one" });
    expect(await segmentCount(created.version)).toBe(await segmentCount(one.version));
    const rowsPage = (await (await send("GET", `/v1/dataset/${created.id}/latest/rows?offset=390&limit=2`, { key })).json()) as { rows: unknown[][] };
    expect(rowsPage.rows.map((r) => r[0])).toEqual([390, 391]);
  });

  it("merges small segments until they are big, and never copies a big one", { timeout: 120_000 }, async () => {
    const key = await createKey(TEAM, "tiered");
    // Segments of 2 KiB are big here: chunks of ten rows merge until they pass it, then stay.
    const vars = { UPLOAD_SEGMENT_BYTES: "2048" };
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Tiered" } });
    const chunks = ["id,city,n\n", ...Array.from({ length: 150 }, (_, i) => rows(i * 10, 10))];
    let offset = 0;
    for (let i = 0; i < chunks.length; i++) {
      const last = i + 1 === chunks.length;
      const response = await patchWith(vars, await signedPatch(key, location, offset, encoder.encode(chunks[i]!), last));
      expect(response.status).toBe(last ? 201 : 204);
      offset += chunks[i]!.length;
      if (last) {
        const created = (await response.json()) as { id: string; version: string };
        expect(await csvOf(key, created.id)).toBe(chunks.join(""));
        const sizes = await segmentSizes(created.version);
        expect(sizes.length).toBeGreaterThan(1);
        // Every segment is big but perhaps the last, which holds what came after the last big one.
        for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThanOrEqual(2048);
      }
    }
  });

  it("stores chunks that are big already once, as they came", async () => {
    const key = await createKey(TEAM, "big");
    const vars = { UPLOAD_SEGMENT_BYTES: "64" };
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Big" } });
    const chunks = ["id,city,n\n" + rows(0, 40), rows(40, 40), rows(80, 40), rows(120, 40), rows(160, 40), rows(200, 40)];
    let offset = 0;
    let response: Response | null = null;
    for (let i = 0; i < chunks.length; i++) {
      response = await patchWith(vars, await signedPatch(key, location, offset, encoder.encode(chunks[i]!), i + 1 === chunks.length));
      offset += chunks[i]!.length;
    }
    expect(response!.status).toBe(201);
    const created = (await response!.json()) as { id: string; version: string };
    expect(await segmentSizes(created.version)).toHaveLength(chunks.length);
    expect(await csvOf(key, created.id)).toBe(chunks.join(""));
  });
});

describe("resumable upload: our client keeps to the bounds", () => {
  /** The worker with the production chunk bounds, as the client's fetch; counts the PATCHes and their sizes. */
  function production(sizes: number[]): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PATCH") sizes.push((await request.clone().arrayBuffer()).byteLength);
      return patchWith(PRODUCTION, request);
    }) as typeof fetch;
  }

  it("groups parts until a chunk reaches min-append-size when 64 KiB of CSV compresses to less", async () => {
    const csv = "id,city,n\n" + rows(0, 200_000);
    const sizes: number[] = [];
    for await (const chunk of partedChunks(new Response(csv).body!, 3, 64 * 1024, 65536)) sizes.push(chunk.bytes.length);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThanOrEqual(65536);
  });

  it("sends gzip and plain files in chunks the server takes, even when asked for smaller ones", { timeout: 120_000 }, async () => {
    const key = await createKey(TEAM, "client");
    const csv = "id,city,n\n" + rows(0, 30_000);
    for (const gzip of [true, false]) {
      const sizes: number[] = [];
      const client = new PubsetClient({ url: ORIGIN, key, fetch: production(sizes), resumableThreshold: 1, chunkBytes: 16 * 1024 });
      const created = await client.create({ name: `Client ${gzip}` }, new Blob([csv]), { fileName: "c.csv", gzip });
      expect(sizes.length).toBeGreaterThan(2);
      for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThanOrEqual(65536);
      expect(await csvOf(key, created.id)).toBe(csv);
    }
  });
});
