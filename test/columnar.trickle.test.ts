// Appends that come one at a time (docs/storage-protocol.md "The Parquet twin"): each is built as
// the latest, and its build writes its own part only, never a tail or summary of the whole
// version, so what it writes does not grow with the dataset. The tail is made from the parts and
// the statistics are merged from their summaries when read, equal to a fresh create's.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { csvPart, collectionPart, send } from "./helpers/http.ts";
import { getTwinState, publishTwin } from "../src/columnar/store.ts";
import { writeTail } from "../src/columnar/parquet/index.ts";
import { readStoredPartMetadata } from "../src/columnar/part-metadata-read.ts";
import { createSummaries, encodeSummary, observeRow, summaryFormat } from "../src/columnar/statistics/table-summary.ts";
import { typedRow } from "../src/schema/cast.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { createKey } from "./helpers/keys.ts";
import { countingR2 } from "./helpers/r2-counting.ts";
import { recordingAfterCommit, signedFetch, twinPartRows, wrapBinding } from "./helpers/storage.ts";

const HEADER = "id,amount,label\n";
/** Distinct labels and amounts: the created part's statistics summary holds every one (exact below 16,384). */
const createdRows = Array.from({ length: 3000 }, (_, i) => `${i},${(i * 7.25) % 1000},label-${i.toString(36)}-${(i * 7919) % 10007}\n`).join("");
const appendedRows = Array.from({ length: 6 }, (_, i) => `${5000 + i},${i - 2.5},trickled ${i}\n`);

/** The worker's R2 binding, recording the key of every object it writes (put or multipart). */
function writtenKeys(): { bucket: R2Bucket; keys: string[] } {
  const keys: string[] = [];
  const bucket = wrapBinding(env.CONTENT, {
    put: (key: string, ...rest: unknown[]) => {
      keys.push(key);
      return (env.CONTENT.put as (...args: unknown[]) => Promise<R2Object>)(key, ...rest);
    },
    createMultipartUpload: (key: string, options?: R2MultipartOptions) => {
      keys.push(key);
      return env.CONTENT.createMultipartUpload(key, options);
    },
  });
  return { bucket, keys };
}

async function consume(workerEnv: Env, messages: unknown[]) {
  const batch = createMessageBatch("pubset-after-commit", messages.map((body, i) => ({ id: `m${i}`, timestamp: Date.now(), attempts: 1, body })));
  const ctx = createExecutionContext();
  await worker.queue(batch, workerEnv);
  const result = await getQueueResult(batch, ctx);
  expect(result.explicitAcks).toHaveLength(messages.length);
}

/** Numbers to 12 significant digits, everything else as is. */
function rounded(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v)));
}

/**
 * The worker's R2 binding, counting the ranged reads of twin objects (parts' metadata) that are
 * under way at once: a get counts from its call until its body has been read.
 */
function concurrentTwinReads(): { bucket: R2Bucket; reads: string[]; most: () => number } {
  const reads: string[] = [];
  let open = 0;
  let most = 0;
  const bucket = wrapBinding(env.CONTENT, {
    get: async (key: string, options?: R2GetOptions) => {
      if (!key.includes("/parquet/") || !options?.range) return env.CONTENT.get(key, options);
      reads.push(key);
      most = Math.max(most, ++open);
      const object = await env.CONTENT.get(key, options);
      if (!object) {
        open--;
        return object;
      }
      const bytes = new Uint8Array(await object.arrayBuffer());
      open--;
      return new Proxy(object, {
        get(target, property) {
          if (property === "arrayBuffer") return () => Promise.resolve(bytes.buffer);
          if (property === "body") return new Blob([bytes]).stream();
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  });
  return { bucket, reads, most: () => most };
}

async function bytesOf(keys: readonly string[]): Promise<number> {
  let total = 0;
  for (const key of keys) total += (await env.CONTENT.head(key))?.size ?? 0;
  return total;
}

describe("a trickle of one-row appends", () => {
  it("writes per append its part only, and reads the file whole and statistics equal to a fresh create's", async () => {
    const key = await createKey("team-trickle", "trude");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "trickle", visibility: "public" }), csvPart(HEADER + createdRows)] });
    expect(created.status).toBe(201);
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    await consume(recorder.env, recorder.sent.splice(0));
    const createdSummary = (await twinPartRows(first))[0]?.summary_bytes;
    expect(createdSummary).toBeGreaterThan(30_000);

    let latest = first;
    const perAppend: number[] = [];
    for (const row of appendedRows) {
      const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(row)] });
      expect(appended.status).toBe(201);
      latest = ((await appended.json()) as { version: string }).version;
      // Each append's messages handled before the next append: every one finds its version the latest.
      const written = writtenKeys();
      await consume({ ...recorder.env, CONTENT: written.bucket }, recorder.sent.splice(0));
      expect(await env.DB.prepare("SELECT state FROM version_parquet WHERE version_id = ?").bind(latest).first<string>("state")).toBe("ready");
      expect(written.keys.every((k) => k.startsWith(`datasets/${id}/`))).toBe(true);
      perAppend.push(await bytesOf(written.keys.filter((k) => k.includes("/parquet/"))));
    }
    // A part of one row (or a few, merged by compaction) and a footer: a few kB, not the created rows' summary again.
    for (const bytes of perAppend) expect(bytes).toBeLessThan(createdSummary! / 3);
    // Nothing version-wide stored: the tail is made from the parts when the file is read.
    const tail = await env.DB.prepare("SELECT tail_key, tail_bytes, summary_bytes, document_bytes FROM version_parquet WHERE version_id = ?").bind(latest).first();
    expect(tail).toMatchObject({ tail_key: null, summary_bytes: 0, document_bytes: 0 });
    const file = await send("GET", `/v1/dataset/${id}/${latest}/data.parquet`);
    const rows = await parquetReadObjects({ file: await file.arrayBuffer(), columns: ["id"] });
    expect(rows.map((r) => Number(r.id))).toEqual([...Array.from({ length: 3000 }, (_, i) => i), ...appendedRows.map((_, i) => 5000 + i)]);

    const fresh = await signedFetch(recorder.env, "POST", "/v1/dataset", key, {
      parts: [collectionPart({ name: "trickle, at once", visibility: "public" }), csvPart(HEADER + createdRows + appendedRows.join(""))],
    });
    const once = (await fresh.json()) as { id: string; version: string };
    await consume(recorder.env, recorder.sent.splice(0));
    const document = async (dataset: string, version: string) => {
      const response = await send("GET", `/v1/dataset/${dataset}/${version}/statistics`);
      expect(response.status).toBe(200);
      return response.json();
    };
    const trickled = (await document(id, latest)) as { rows: number };
    expect(trickled.rows).toBe(3000 + appendedRows.length);
    // Equal, but for the last bits of merged floating-point moments (std) summed in another order.
    expect(rounded(trickled)).toEqual(rounded(await document(once.id, once.version)));
  });

  it("makes a tail of many parts reading one part's metadata at a time, at the build and when read", async () => {
    const key = await createKey("team-trickle", "paula");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "tail of parts", visibility: "public" }), csvPart(HEADER + createdRows)] });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string; version: string };
    await consume(recorder.env, recorder.sent.splice(0));
    let latest = "";
    let atBuild = 0;
    for (const row of appendedRows.slice(0, 4)) {
      const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(row)] });
      expect(appended.status).toBe(201);
      latest = ((await appended.json()) as { version: string }).version;
      const counted = concurrentTwinReads();
      await consume({ ...recorder.env, CONTENT: counted.bucket }, recorder.sent.splice(0));
      atBuild = Math.max(atBuild, counted.most());
    }
    const parts = await twinPartRows(latest);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    // Each build read its parts' metadata, one read under way at a time.
    expect(atBuild).toBe(1);
    const twin = await env.DB.prepare("SELECT tail_key, tail_bytes FROM version_parquet WHERE version_id = ?").bind(latest).first<{ tail_key: string | null; tail_bytes: number }>();
    expect(twin!.tail_key).toBeNull();
    // The first read of the file's end makes the tail in this isolate: every part's metadata read, one at a time.
    const counted = concurrentTwinReads();
    const end = await signedFetch({ ...env, CONTENT: counted.bucket }, "GET", `/v1/dataset/${id}/${latest}/data.parquet`, key, { headers: { Range: `bytes=-${twin!.tail_bytes}` } });
    expect(end.status).toBe(206);
    const tail = new Uint8Array(await end.arrayBuffer());
    expect(tail.length).toBe(twin!.tail_bytes);
    for (const part of parts) expect(counted.reads).toContain(part.key);
    expect(counted.most()).toBe(1);
    // The bytes writeTail makes from every part's metadata held at once, and the file reads back whole.
    const schema = (await (await send("GET", `/v1/dataset/${id}/${latest}/schema`)).json()) as TableSchema;
    const stored = await getTwinState(env.DB, latest);
    expect(tail).toEqual(writeTail(schema, await Promise.all(stored!.parts.map((part) => readStoredPartMetadata(env.CONTENT, part)))));
    const file = new Uint8Array(await (await send("GET", `/v1/dataset/${id}/${latest}/data.parquet`)).arrayBuffer());
    expect(file.subarray(file.length - tail.length)).toEqual(tail);
    const rows = await parquetReadObjects({ file: file.buffer, columns: ["id"] });
    expect(rows.map((r) => Number(r.id))).toEqual([...Array.from({ length: 3000 }, (_, i) => i), ...appendedRows.slice(0, 4).map((_, i) => 5000 + i)]);
  });

  it("reads the stored document of a twin built before statistics were merged on read", async () => {
    const key = await createKey("team-trickle", "olga");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "older twin", visibility: "public" }), csvPart(HEADER + createdRows.split("\n").slice(0, 200).join("\n") + "\n")] });
    expect(created.status).toBe(201);
    const { id, version } = (await created.json()) as { id: string; version: string };
    await consume(recorder.env, recorder.sent.splice(0));
    const path = `/v1/dataset/${id}/${version}/statistics`;
    const rendered = (await (await send("GET", path)).json()) as { rows: number };
    // The older layout: the tail object holds the Parquet tail, a summary, then the document.
    // Written here indented, so its bytes differ from a document rendered now.
    const twin = await env.DB.prepare("SELECT tail_key, tail_bytes FROM version_parquet WHERE version_id = ?").bind(version).first<{ tail_key: string | null; tail_bytes: number }>();
    expect(twin!.tail_key).toBeNull();
    const made = new Uint8Array(await (await send("GET", `/v1/dataset/${id}/${version}/data.parquet`)).arrayBuffer());
    const tail = made.slice(made.length - twin!.tail_bytes);
    const summary = new Uint8Array([1, 2, 3]);
    const stored = new TextEncoder().encode(JSON.stringify(rendered, null, 1));
    const olderKey = `datasets/${id}/parquet/${crypto.randomUUID()}`;
    await env.CONTENT.put(olderKey, new Uint8Array([...tail, ...summary, ...stored]));
    await env.DB.prepare("UPDATE version_parquet SET tail_key = ?, summary_bytes = ?, document_bytes = ? WHERE version_id = ?").bind(olderKey, summary.length, stored.length, version).run();
    const signed = await signedFetch(env, "GET", path, key);
    expect(signed.status).toBe(200);
    expect(new Uint8Array(await signed.arrayBuffer())).toEqual(stored);
    // The file is the same bytes, its tail read from the front of that object.
    const counted = countingR2(env.CONTENT);
    const file = await signedFetch({ ...env, CONTENT: counted.bucket }, "GET", `/v1/dataset/${id}/${version}/data.parquet`, key);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(made);
    expect(counted.reads).toContainEqual({ key: olderKey, offset: 0, length: twin!.tail_bytes });

    // Built again (as after a compaction), the twin stores no tail: the older one is left for the clean-up.
    const state = await getTwinState(env.DB, version);
    const row = await env.DB.prepare("SELECT encoding, kinds, file_bytes FROM version_parquet WHERE version_id = ?").bind(version).first<{ encoding: string; kinds: string; file_bytes: number }>();
    const again = { encoding: row!.encoding, kinds: row!.kinds, tailKey: null, tailBytes: twin!.tail_bytes, summaryBytes: 0, documentBytes: 0, fileBytes: row!.file_bytes, parts: state!.parts };
    expect(await publishTwin(env.DB, id, version, again, Date.now())).toBe(true);
    expect(await env.DB.prepare("SELECT reason FROM pending_objects WHERE key = ?").bind(olderKey).first<string>("reason")).toBe("replaced");
    expect(await env.DB.prepare("SELECT tail_key FROM version_parquet WHERE version_id = ?").bind(version).first<string | null>("tail_key")).toBeNull();
  });

  it("keys an append's texts as the parts it joins do when those were stored in format 1, so distinct stays exact", async () => {
    const key = await createKey("team-trickle", "fiona");
    const recorder = recordingAfterCommit();
    // Past the frequent counters' 4,096 on both sides: neither summary could be keyed again from its texts.
    const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${from + i},${(from + i) / 2},label ${from + i} ü\n`).join("");
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "format 1 parts", visibility: "public" }), csvPart(HEADER + rows(0, 5000))] });
    expect(created.status).toBe(201);
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    await consume(recorder.env, recorder.sent.splice(0));
    // The created part as a build before format 2 stored it: its summary keyed by UTF-16 code units.
    const part = (await twinPartRows(first))[0];
    const schema = (await (await send("GET", `/v1/dataset/${id}/${first}/schema`)).json()) as TableSchema;
    const old = createSummaries(schema, "utf16");
    for (const line of rows(0, 5000).trimEnd().split("\n")) observeRow(old, typedRow(schema, new Set(schema.missingValues), line.split(",")));
    old.rows = 5000;
    const oldBytes = encodeSummary(old);
    expect(summaryFormat(oldBytes)).toBe(1);
    const object = new Uint8Array(await (await env.CONTENT.get(part!.key))!.arrayBuffer());
    // The summary swapped in place: the row groups' pages stored after it stay (docs/columnar.md "Part metadata").
    const summaryEnd = part!.data_bytes + part!.meta_bytes + part!.summary_bytes;
    await env.CONTENT.put(part!.key, new Uint8Array([...object.subarray(0, part!.data_bytes + part!.meta_bytes), ...oldBytes, ...object.subarray(summaryEnd)]));
    await env.DB.prepare("UPDATE parquet_parts SET summary_bytes = ? WHERE key = ?").bind(oldBytes.length, part!.key).run();

    const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(rows(5000, 4500))] });
    expect(appended.status).toBe(201);
    const latest = ((await appended.json()) as { version: string }).version;
    // The twin message only: a compaction would merge both segments into one new part.
    await consume(recorder.env, recorder.sent.splice(0).filter((message) => (message as { kind: string }).kind === "parquet"));
    const parts = await twinPartRows(latest);
    expect(parts).toHaveLength(2);
    const added = parts[1]!;
    const head = await env.CONTENT.get(added.key, { range: { offset: added.data_bytes + added.meta_bytes, length: 5 } });
    expect(summaryFormat(new Uint8Array(await head!.arrayBuffer()))).toBe(1);
    const document = (await (await send("GET", `/v1/dataset/${id}/${latest}/statistics`)).json()) as { rows: number; columns: Record<string, unknown>[] };
    expect(document.rows).toBe(9500);
    expect(document.columns[2]).toMatchObject({ name: "label", distinct: 9500 });
    expect(document.columns[2]).not.toHaveProperty("distinct_approximate");
  });
});
