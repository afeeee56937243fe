// The scheduled clean-up (docs/storage-protocol.md, docs/storage-protocol.md): it deletes exactly what the intent
// log says nothing needs — unclaimed uploads after the write grace, replaced and deleted objects
// after the read grace — never anything a version references, never by listing the bucket; a
// commit that comes after its upload was collected fails cleanly; expired nonces and idempotency
// records go; the worker's scheduled handler runs it.
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import worker from "../src/index.ts";
import { runCleanup } from "../src/maintenance/cleanup.ts";
import { compactVersion } from "../src/maintenance/compaction.ts";
import { DEFAULT_MERGE_POLICY } from "../src/storage/compaction-plan.ts";
import { getVersionSegments } from "../src/storage/datasets-db.ts";
import { ORIGIN, appendRows, collectionPart, createDataset, csvPart, expectProblem, multipart, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { NO_AUTO_COMPACTION, TIMINGS, appendWith, objectExists, pendingRows, recordingAfterCommit, signedFetch, untrackedObjects, wrapBinding } from "./helpers/storage.ts";
import { buildTwin } from "../src/columnar/build.ts";

const TEAM = "team-cleanup";
const AFTER_WRITE_GRACE = () => Date.now() + TIMINGS.writeGraceMs + 60_000;
const AFTER_READ_GRACE = () => Date.now() + TIMINGS.readGraceMs + 60_000;

interface Snapshot {
  key: TestKey;
  id: string;
  versions: { id: string; gz: Uint8Array }[];
}

async function gz(key: TestKey, id: string, version: string): Promise<Uint8Array> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** A dataset with a few versions, and the `.gz` bytes of each to compare after a clean-up. */
async function datasetWithVersions(key: TestKey, appends: number): Promise<Snapshot> {
  const created = await createDataset(key, "n,v\n0,a\n", { name: "kept" });
  const ids = [created.version];
  for (let i = 1; i <= appends; i++) {
    const response = await appendWith(NO_AUTO_COMPACTION, key, created.id, `${i},b${i}\n`);
    ids.push(((await response.json()) as { version: string }).version);
  }
  const versions = [];
  for (const id of ids) versions.push({ id, gz: await gz(key, created.id, id) });
  return { key, id: created.id, versions };
}

async function expectUnchanged(snapshots: Snapshot[]) {
  for (const s of snapshots) for (const v of s.versions) expect(await gz(s.key, s.id, v.id)).toEqual(v.gz);
}

/** An append refused after its rows reached R2 (a bad `collection` part after them): an unclaimed upload. */
async function refusedUpload(key: TestKey, id: string): Promise<string> {
  const parts = [csvPart("9,z\n"), collectionPart({ visiblity: "public" })];
  await expectProblem(await write("POST", `/v1/dataset/${id}`, key, parts), 400, "invalid_request");
  const uploads = (await pendingRows(id)).filter((r) => r.reason === "upload");
  expect(uploads).toHaveLength(1);
  expect(await objectExists(uploads[0]!.key)).toBe(true);
  return uploads[0]!.key;
}

describe("runCleanup", { timeout: 60_000 }, () => {
  it("collects a refused write's upload after the write grace, not before, and nothing referenced", async () => {
    const key = await createKey(TEAM, "alice");
    const snapshot = await datasetWithVersions(key, 3);
    const other = await datasetWithVersions(key, 0);
    const upload = await refusedUpload(key, snapshot.id);
    await env.CONTENT.put("elsewhere/not-ours", "x");

    expect(await runCleanup(env, Date.now())).toMatchObject({ objectsDeleted: 0, failed: [] });
    expect(await objectExists(upload)).toBe(true);

    const later = await runCleanup(env, AFTER_WRITE_GRACE());
    expect(later.failed).toEqual([]);
    expect(later.objectsDeleted).toBeGreaterThanOrEqual(1);
    expect(await objectExists(upload)).toBe(false);
    expect(await pendingRows(snapshot.id)).toEqual([]);
    expect(await objectExists("elsewhere/not-ours")).toBe(true);
    const { results } = await env.DB.prepare("SELECT segment_key FROM version_segments").all<{ segment_key: string }>();
    for (const { segment_key } of results) expect(await objectExists(segment_key)).toBe(true);
    await expectUnchanged([snapshot, other]);
    expect(await untrackedObjects(snapshot.id)).toEqual([]);
  });

  it("collects what a compaction replaced after the read grace, with its rows", async () => {
    const key = await createKey(TEAM, "bob");
    const snapshot = await datasetWithVersions(key, 4);
    const latest = snapshot.versions[4]!.id;
    const before = await getVersionSegments(env.DB, latest);
    expect(await compactVersion(env, snapshot.id, latest, DEFAULT_MERGE_POLICY, TIMINGS)).toBe("compacted");
    const replaced = (await pendingRows(snapshot.id)).filter((r) => r.reason === "replaced").map((r) => r.key);
    expect(replaced.length).toBeGreaterThan(0);

    await runCleanup(env, Date.now());
    for (const k of replaced) expect(await objectExists(k)).toBe(true);

    await runCleanup(env, AFTER_READ_GRACE());
    for (const k of replaced) {
      expect(await objectExists(k)).toBe(false);
      expect(await env.DB.prepare("SELECT 1 AS x FROM segments WHERE key = ?").bind(k).first()).toBeNull();
    }
    for (const s of before) if (!replaced.includes(s.key)) expect(await objectExists(s.key)).toBe(true);
    await expectUnchanged([snapshot]);
    expect((await appendRows(key, snapshot.id, "7,b7\n")).status).toBe(201);
  });

  it("collects a deleted dataset's objects after the read grace; other datasets untouched", async () => {
    const key = await createKey(TEAM, "carol");
    const gone = await datasetWithVersions(key, 2);
    const kept = await datasetWithVersions(key, 1);
    // Segments only: Parquet twins built in the background meanwhile are collected the same way, and counted apart.
    const segmentsOnly = (keys: string[]) => keys.filter((k) => !k.includes("/parquet/"));
    const goneKeys = segmentsOnly((await env.CONTENT.list({ prefix: `datasets/${gone.id}/` })).objects.map((o) => o.key));
    expect(goneKeys.length).toBe(3);
    expect((await send("DELETE", `/v1/dataset/${gone.id}`, { key })).status).toBe(204);
    expect((await pendingRows(gone.id)).filter((r) => !r.key.includes("/parquet/")).map((r) => r.reason)).toEqual(["deleted", "deleted", "deleted"]);

    await runCleanup(env, Date.now());
    for (const k of goneKeys) expect(await objectExists(k)).toBe(true);
    await runCleanup(env, AFTER_READ_GRACE());
    for (const k of goneKeys) expect(await objectExists(k)).toBe(false);
    expect(await pendingRows(gone.id)).toEqual([]);
    await expectUnchanged([kept]);
  });

  it("never lists the bucket", async () => {
    const key = await createKey(TEAM, "dave");
    const snapshot = await datasetWithVersions(key, 1);
    await refusedUpload(key, snapshot.id);
    const bucket = wrapBinding(env.CONTENT, {
      list: () => {
        throw new Error("the clean-up listed the bucket");
      },
    });
    expect(await runCleanup({ ...env, CONTENT: bucket }, AFTER_WRITE_GRACE())).toMatchObject({ failed: [] });
    expect(await pendingRows(snapshot.id)).toEqual([]);
  });

  it("a write whose upload was collected before it committed fails with 409 and changes nothing", async () => {
    const key = await createKey(TEAM, "erin");
    const snapshot = await datasetWithVersions(key, 1);
    const url = `${ORIGIN}/v1/dataset/${snapshot.id}`;
    const { body, contentType } = multipart([csvPart("2,late\n")]);
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key);
    // The body arrives in two halves; between them the clean-up runs as if the write grace had passed.
    let sendRest: () => void = () => {};
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        const split = new TextDecoder().decode(body).indexOf("\r\n\r\n") + 6;
        controller.enqueue(body.subarray(0, split));
        await rest;
        controller.enqueue(body.subarray(split));
        controller.close();
      },
    });
    const pending = worker.fetch(new Request(url, { method: "POST", headers, body: stream, duplex: "half" } as RequestInit), env, {
      waitUntil: () => {},
      passThroughOnException: () => {},
      props: {},
    } as unknown as ExecutionContext);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await pendingRows(snapshot.id)).filter((r) => r.reason === "upload")).toHaveLength(1);
    await runCleanup(env, AFTER_WRITE_GRACE());
    sendRest();
    await expectProblem(await pending, 409, "conflict");
    const versions = (await (await send("GET", `/v1/dataset/${snapshot.id}/versions`, { key })).json()) as { results: unknown[] };
    expect(versions.results).toHaveLength(2);
    await expectUnchanged([snapshot]);
  });

  it("compacts a latest version whose list outgrew the bound (compactions the appends missed)", async () => {
    const key = await createKey(TEAM, "frank");
    const snapshot = await datasetWithVersions(key, 20);
    const latest = snapshot.versions[20]!.id;
    expect(await getVersionSegments(env.DB, latest)).toHaveLength(21);
    const summary = await runCleanup(env, Date.now());
    expect(summary.failed).toEqual([]);
    expect(summary.versionsCompacted).toBeGreaterThanOrEqual(1);
    expect((await getVersionSegments(env.DB, latest)).length).toBeLessThanOrEqual(DEFAULT_MERGE_POLICY.maxSegments);
    await expectUnchanged([snapshot]);
  });

  it("purges expired nonces and idempotency records and keeps live ones", async () => {
    const now = Date.now();
    const seconds = Math.floor(now / 1000);
    await env.DB.batch([
      env.DB.prepare("INSERT INTO nonces (key_id, nonce, expires) VALUES ('cleanup-key', 'old', ?), ('cleanup-key', 'live', ?)").bind(seconds - 1, seconds + 600),
      env.DB.prepare(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, request_fingerprint, reservation, state, created, expires)
         VALUES ('cleanup-key', 'old', 'f', 'r', 'done', ?1, ?2), ('cleanup-key', 'live', 'f', 'r', 'done', ?1, ?3)`,
      ).bind(seconds - 90_000, seconds - 1, seconds + 3600),
    ]);
    const summary = await runCleanup(env, now);
    expect(summary.noncesPurged).toBeGreaterThanOrEqual(1);
    expect(summary.idempotencyRecordsPurged).toBeGreaterThanOrEqual(1);
    const nonces = await env.DB.prepare("SELECT nonce FROM nonces WHERE key_id = 'cleanup-key'").all<{ nonce: string }>();
    expect(nonces.results.map((r) => r.nonce)).toEqual(["live"]);
    const records = await env.DB.prepare("SELECT idempotency_key FROM idempotency_keys WHERE key_id = 'cleanup-key'").all<{ idempotency_key: string }>();
    expect(records.results.map((r) => r.idempotency_key)).toEqual(["live"]);
  });
});

describe("scheduled handler", { timeout: 60_000 }, () => {
  it("runs the clean-up at the controller's scheduled time", async () => {
    const key = await createKey(TEAM, "grace");
    const snapshot = await datasetWithVersions(key, 1);
    const upload = await refusedUpload(key, snapshot.id);
    const controller = createScheduledController({ scheduledTime: AFTER_WRITE_GRACE(), cron: "*/30 * * * *" });
    await worker.scheduled(controller, env);
    expect(await objectExists(upload)).toBe(false);
    await expectUnchanged([snapshot]);
  });
});

describe("the clean-up's sweep for lost Parquet builds", () => {
  it("asks again for the twin of a latest version left pending past its grace, and of no other", async () => {
    const key = await createKey("team-twin-sweep", "alice");
    const recorder = recordingAfterCommit();
    const made = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "lost twin" }), csvPart("a\n1\n")] });
    const { id, version } = (await made.json()) as { id: string; version: string };
    const built = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "built twin" }), csvPart("a\n1\n")] });
    const other = (await built.json()) as { id: string; version: string };
    await buildTwin(env, other.id, other.version, TIMINGS);
    const sent = recorder.sent.length;
    // Fresh: its message may still be on its way.
    await runCleanup(recorder.env, Date.now());
    expect(recorder.sent.slice(sent)).not.toContainEqual({ kind: "parquet", datasetId: id, versionId: version });
    const later = Date.now() + 16 * 60_000;
    await runCleanup(recorder.env, later);
    const asked = recorder.sent.slice(sent);
    expect(asked).toContainEqual({ kind: "parquet", datasetId: id, versionId: version });
    expect(asked).not.toContainEqual({ kind: "parquet", datasetId: other.id, versionId: other.version });
  });
});
