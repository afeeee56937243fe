// The Parquet twin of a version (docs/columnar.md, docs/storage-protocol.md "The Parquet twin"):
// pending until the after-commit consumer builds it, then the file hyparquet reads back cell for
// cell; an append reuses its parent's parts; a build that keeps failing says so.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { csvPart, collectionPart, expectProblem, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { recordingAfterCommit, signedFetch } from "./helpers/storage.ts";

const CSV = "id,price,day,at,ok,label\n1,2.5,2024-01-02,2024-01-02T03:04:05Z,true,one\n2,,1969-12-31,2024-01-02T03:04:06.5Z,false,deux 😀\n";

async function consume(messages: unknown[], attempts = 1) {
  const batch = createMessageBatch("pubset-after-commit", messages.map((body, i) => ({ id: `m${i}`, timestamp: Date.now(), attempts, body })));
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/** Signed: an anonymous /versions is a listing a shared cache keeps for a minute (docs/edge-and-caching.md). */
async function versions(id: string, key: Awaited<ReturnType<typeof createKey>>) {
  const response = await send("GET", `/v1/dataset/${id}/versions`, { key });
  return ((await response.json()) as { results: Record<string, unknown>[] }).results;
}

describe("the Parquet twin", () => {
  it("is pending until built, then reads back every cell, with ranges and immutable caching", async () => {
    const key = await createKey("team-twin", "alice");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin", visibility: "public" }), csvPart(CSV, "cities.csv")] });
    expect(created.status).toBe(201);
    const { id, version } = (await created.json()) as { id: string; version: string };
    const path = `/v1/dataset/${id}/${version}/cities.parquet`;

    const pending = await send("GET", path);
    const problem = await expectProblem(pending, 503, "parquet_pending");
    expect(problem.state).toBe("pending");
    expect(pending.headers.get("Retry-After")).toBe("5");
    expect(pending.headers.get("Cache-Control")).toBe("no-store");
    expect((await versions(id, key))[0]?.parquet).toBe("pending");

    await expectProblem(await send("GET", `/v1/dataset/${id}/${version}/statistics`), 503, "parquet_pending");
    expect(recorder.sent).toEqual([{ kind: "parquet", datasetId: id, versionId: version }]);
    // A create's twin is built at once.
    expect(recorder.delays).toEqual([undefined]);
    expect((await consume(recorder.sent)).explicitAcks).toEqual(["m0"]);
    expect((await versions(id, key))[0]?.parquet).toBe("ready");

    const file = await send("GET", path, { headers: { "Accept-Encoding": "gzip" } });
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/vnd.apache.parquet");
    expect(file.headers.get("Content-Disposition")).toBe('attachment; filename="cities.parquet"');
    expect(file.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(file.headers.get("ETag")).toBe(`"${version}.parquet"`);
    const bytes = await file.arrayBuffer();
    expect(Number(file.headers.get("Content-Length"))).toBe(bytes.byteLength);
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe("PAR1");
    expect(new TextDecoder().decode(bytes.slice(-4))).toBe("PAR1");
    const rows = await parquetReadObjects({ file: bytes });
    expect(rows).toEqual([
      { id: 1n, price: 2.5, day: new Date("2024-01-02T00:00:00Z"), at: new Date("2024-01-02T03:04:05Z"), ok: true, label: "one" },
      { id: 2n, price: null, day: new Date("1969-12-31T00:00:00Z"), at: new Date("2024-01-02T03:04:06.500Z"), ok: false, label: "deux 😀" },
    ]);

    const statistics = await send("GET", `/v1/dataset/${id}/${version}/statistics`);
    expect(statistics.status).toBe(200);
    expect(statistics.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const document = (await statistics.json()) as { rows: number; columns: Record<string, unknown>[] };
    expect(document.rows).toBe(2);
    expect(document.columns.map((c) => [c.name, c.type, c.nulls])).toEqual([
      ["id", "integer", 0],
      ["price", "number", 1],
      ["day", "date", 0],
      ["at", "datetime", 0],
      ["ok", "boolean", 0],
      ["label", "string", 0],
    ]);
    expect(document.columns[0]).toMatchObject({ min: 1, max: 2, mean: 1.5, distinct: 2 });
    expect(document.columns[4]).toMatchObject({ true: 1, false: 1 });

    const head = await send("GET", path, { headers: { Range: "bytes=0-3" } });
    expect(head.status).toBe(206);
    expect(head.headers.get("Content-Range")).toBe(`bytes 0-3/${bytes.byteLength}`);
    expect(await head.text()).toBe("PAR1");
    const tail = await send("GET", path, { headers: { Range: `bytes=-8` } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(new Uint8Array(bytes.slice(-8)));
    await expectProblem(await send("GET", path, { headers: { Range: `bytes=${bytes.byteLength}-` } }), 416, "range_not_satisfiable");
    // The CSV's name is not the twin's, and a name that is neither is 404.
    await expectProblem(await send("GET", `/v1/dataset/${id}/${version}/cities.csv.parquet`), 404, "not_found");
  });

  it("after an append, stitches the parent's part and encodes only the appended rows", async () => {
    const key = await createKey("team-twin", "bob");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin append" }), csvPart(CSV)] });
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    await consume(recorder.sent.splice(0));
    const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart("3,4,2024-02-01,2024-02-01T00:00:00Z,true,trois\n")] });
    expect(appended.status).toBe(201);
    const { version: second } = (await appended.json()) as { version: string };
    await consume(recorder.sent.filter((m) => (m as { kind: string }).kind === "parquet"));
    const parts = async (version: string) =>
      (await env.DB.prepare("SELECT part_key FROM version_parquet_parts WHERE version_id = ? ORDER BY position").bind(version).all<{ part_key: string }>()).results.map((r) => r.part_key);
    const [parentParts, childParts] = [await parts(first), await parts(second)];
    expect(parentParts).toHaveLength(1);
    expect(childParts).toHaveLength(2);
    expect(childParts[0]).toBe(parentParts[0]);
    // The appended version's statistics are its parent's merged with the appended rows'.
    const statistics = (await (await send("GET", `/v1/dataset/${id}/${second}/statistics`, { key })).json()) as { rows: number; columns: Record<string, unknown>[] };
    expect(statistics.rows).toBe(3);
    expect(statistics.columns[0]).toMatchObject({ name: "id", min: 1, max: 3, mean: 2, median: 2, distinct: 3 });
    expect(statistics.columns[5]).toMatchObject({ name: "label", top: expect.arrayContaining([{ value: "trois", count: 1 }]) });
    // A private dataset's twin is the team's: anonymous readers get 404.
    await expectProblem(await send("GET", `/v1/dataset/${id}/${second}/data.parquet`), 404, "not_found");
    const file = await send("GET", `/v1/dataset/${id}/${second}/data.parquet`, { key });
    expect(file.headers.get("Cache-Control")).toBe("private, no-store");
    const rows = await parquetReadObjects({ file: await file.arrayBuffer(), columns: ["id", "label"] });
    expect(rows).toEqual([
      { id: 1n, label: "one" },
      { id: 2n, label: "deux 😀" },
      { id: 3n, label: "trois" },
    ]);
  });

  it("retries a build that throws, and after its last attempt says why in /versions and on the path", async () => {
    const key = await createKey("team-twin", "carol");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin fails", visibility: "public" }), csvPart(CSV)] });
    const { id, version } = (await created.json()) as { id: string; version: string };
    // The content's one segment disappears from R2: no build can read it.
    const segment = await env.DB.prepare("SELECT segment_key FROM version_segments WHERE version_id = ?").bind(version).first<string>("segment_key");
    await env.CONTENT.delete(segment!);
    const first = await consume(recorder.sent, 1);
    expect(first.retryMessages.map((m) => m.msgId)).toEqual(["m0"]);
    expect((await versions(id, key))[0]?.parquet).toBe("pending");
    const last = await consume(recorder.sent, 4);
    expect(last.explicitAcks).toEqual(["m0"]);
    const entry = (await versions(id, key))[0];
    expect(entry?.parquet).toBe("failed");
    expect(String(entry?.parquet_error)).toContain("segment object missing");
    const problem = await expectProblem(await send("GET", `/v1/dataset/${id}/${version}/data.parquet`), 503, "parquet_pending");
    expect(problem.state).toBe("failed");
  });

  it("builds only the newest twin of a burst of appends, and a superseded version's when a reader asks for it", async () => {
    const key = await createKey("team-twin", "dave");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin burst", visibility: "public" }), csvPart(CSV)] });
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    await consume(recorder.sent.splice(0));
    const appendedRows = ["3,4,2024-02-01,2024-02-01T00:00:00Z,true,trois\n", "4,-1e3,1900-03-01,2024-02-02T00:00:00+02:00,,quatre\n", "5,0.125,2100-12-31,2024-02-03T00:00:00Z,false,\n"];
    const burst: string[] = [];
    for (const row of appendedRows) {
      const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(row)] });
      expect(appended.status).toBe(201);
      burst.push(((await appended.json()) as { version: string }).version);
    }
    // The whole burst's messages (compactions and twins) are handled together, as a consumer
    // behind them, or one whose twin messages were delayed, handles them.
    const messages = recorder.sent.splice(0);
    expect(messages.filter((m) => (m as { kind: string }).kind === "parquet")).toHaveLength(3);
    expect((await consume(messages)).explicitAcks).toHaveLength(messages.length);
    const state = async (version: string) => (await env.DB.prepare("SELECT state FROM version_parquet WHERE version_id = ?").bind(version).first<string>("state")) ?? "pending";
    expect(await Promise.all([first, ...burst].map(state))).toEqual(["ready", "pending", "pending", "ready"]);
    // Two builds in all, each with its one tail: the create's and the newest version's.
    const tails = await env.DB.prepare("SELECT count(*) AS n FROM version_parquet p JOIN versions v ON v.id = p.version_id WHERE v.dataset_id = ?").bind(id).first<number>("n");
    expect(tails).toBe(2);

    // A superseded version's file and statistics: pending, and asked for by the request.
    const [second, third] = [burst[0]!, burst[1]!];
    const pending = await signedFetch(recorder.env, "GET", `/v1/dataset/${id}/${second}/data.parquet`, key);
    expect((await expectProblem(pending, 503, "parquet_pending")).state).toBe("pending");
    expect(pending.headers.get("Retry-After")).toBe("5");
    await expectProblem(await signedFetch(recorder.env, "GET", `/v1/dataset/${id}/${third}/statistics`, key), 503, "parquet_pending");
    const listed = await versions(id, key);
    expect(listed.find((v) => v.version === second)?.parquet).toBe("pending");
    const asked = recorder.sent.splice(0);
    expect(asked).toEqual([
      { kind: "parquet", datasetId: id, versionId: second, asked: true },
      { kind: "parquet", datasetId: id, versionId: third, asked: true },
    ]);
    await consume(asked);
    expect(await Promise.all([second, third].map(state))).toEqual(["ready", "ready"]);
    expect((await versions(id, key)).find((v) => v.version === second)?.parquet).toBe("ready");

    // Each reads back exactly its own rows.
    const read = async (version: string) => parquetReadObjects({ file: await (await send("GET", `/v1/dataset/${id}/${version}/data.parquet`)).arrayBuffer() });
    const expected = [
      { id: 1n, price: 2.5, day: new Date("2024-01-02T00:00:00Z"), at: new Date("2024-01-02T03:04:05Z"), ok: true, label: "one" },
      { id: 2n, price: null, day: new Date("1969-12-31T00:00:00Z"), at: new Date("2024-01-02T03:04:06.500Z"), ok: false, label: "deux 😀" },
      { id: 3n, price: 4, day: new Date("2024-02-01T00:00:00Z"), at: new Date("2024-02-01T00:00:00Z"), ok: true, label: "trois" },
      { id: 4n, price: -1000, day: new Date("1900-03-01T00:00:00Z"), at: new Date("2024-02-01T22:00:00Z"), ok: null, label: "quatre" },
      { id: 5n, price: 0.125, day: new Date("2100-12-31T00:00:00Z"), at: new Date("2024-02-03T00:00:00Z"), ok: false, label: null },
    ];
    expect(await read(second)).toEqual(expected.slice(0, 3));
    expect(await read(third)).toEqual(expected.slice(0, 4));
    expect(await read(burst[2]!)).toEqual(expected);
    const statistics = (await (await send("GET", `/v1/dataset/${id}/${third}/statistics`)).json()) as { rows: number; columns: Record<string, unknown>[] };
    expect(statistics.rows).toBe(4);
    expect(statistics.columns[0]).toMatchObject({ name: "id", min: 1, max: 4, distinct: 4 });
    // Asking for a ready twin asks for nothing.
    await signedFetch(recorder.env, "GET", `/v1/dataset/${id}/${second}/data.parquet`, key);
    expect(recorder.sent).toEqual([]);
  });

  it("builds the latest twin for a superseded version's message when no twin of the dataset was published lately", async () => {
    const key = await createKey("team-twin", "erin");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin stale" }), csvPart(CSV)] });
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart("3,4,2024-02-01,2024-02-01T00:00:00Z,true,trois\n")] });
    const { version: second } = (await appended.json()) as { version: string };
    // The latest's own message builds it: asking for it asks for nothing more.
    await expectProblem(await signedFetch(recorder.env, "GET", `/v1/dataset/${id}/${second}/data.parquet`, key), 503, "parquet_pending");
    expect(recorder.sent).toHaveLength(3);
    // Only the create's message is handled: it is superseded, and no twin was ever published.
    await consume([recorder.sent[0]]);
    const state = async (version: string) => (await env.DB.prepare("SELECT state FROM version_parquet WHERE version_id = ?").bind(version).first<string>("state")) ?? "pending";
    expect([await state(first), await state(second)]).toEqual(["pending", "ready"]);
  });

  it("counts 20,000 to 100,000 distinct values exactly, through the encoder, the stored parts and an append", async () => {
    const key = await createKey("team-twin", "dora");
    const recorder = recordingAfterCommit();
    // 30,000 rows of 24,000 distinct codes and amounts: past the values kept with their counts
    // (16,384), within the distinct values counted exactly (docs/statistics.md).
    const row = (i: number) => `${i},${(i % 24_000) * 0.25},code-${(i % 24_000).toString(36)}\n`;
    const csv = "id,amount,code\n" + Array.from({ length: 30_000 }, (_, i) => row(i)).join("");
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "twin distinct", visibility: "public" }), csvPart(csv)] });
    expect(created.status).toBe(201);
    const { id, version: first } = (await created.json()) as { id: string; version: string };
    await consume(recorder.sent.splice(0));
    // 1,000 rows more, 1,000 of them new values: the parent's part (its keys stored) merged with the append's.
    const fresh = Array.from({ length: 1_000 }, (_, i) => `${30_000 + i},${(30_000 + i) * 0.25},fresh-${i}\n`).join("");
    const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(fresh)] });
    expect(appended.status).toBe(201);
    const { version: second } = (await appended.json()) as { version: string };
    await consume(recorder.sent.filter((m) => (m as { kind: string }).kind === "parquet"));
    for (const [version, distinct] of [[first, 24_000], [second, 25_000]] as const) {
      const document = (await (await send("GET", `/v1/dataset/${id}/${version}/statistics`)).json()) as { columns: Record<string, unknown>[] };
      const [, amount, code] = document.columns;
      expect(amount).toMatchObject({ name: "amount", distinct, approximate: true });
      expect(code).toMatchObject({ name: "code", distinct });
      expect([amount, code].map((column) => column!.distinct_approximate)).toEqual([undefined, undefined]);
    }
  });
});
