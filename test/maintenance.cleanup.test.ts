// The scheduled clean-up (SPEC B7): unreachable R2 objects and segment rows go once they are an
// hour old, nothing a committed version references is touched, expired nonces and idempotency
// records are purged, and the worker's scheduled handler runs it.
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { ORPHAN_MIN_AGE_MS, runCleanup } from "../src/maintenance/cleanup.ts";
import { compactVersion } from "../src/maintenance/compaction.ts";
import { getVersionSegments } from "../src/storage/datasets-db.ts";
import { deleteDatasetRows } from "../src/storage/delete-db.ts";
import { newSegmentKey } from "../src/storage/segment-store.ts";
import { appendRows, createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { mulberry32 } from "./helpers/random.ts";

const TEAM = "team-cleanup";
const LATER = () => Date.now() + ORPHAN_MIN_AGE_MS + 60_000;

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
    const response = await appendRows(key, created.id, `${i},b${i}\n`);
    ids.push(((await response.json()) as { version: string }).version);
  }
  const versions = [];
  for (const id of ids) versions.push({ id, gz: await gz(key, created.id, id) });
  return { key, id: created.id, versions };
}

async function expectUnchanged(snapshots: Snapshot[]) {
  for (const s of snapshots) for (const v of s.versions) expect(await gz(s.key, s.id, v.id)).toEqual(v.gz);
}

async function putOrphan(datasetId: string = crypto.randomUUID()): Promise<string> {
  const key = newSegmentKey(datasetId);
  const random = mulberry32(key.length);
  await env.CONTENT.put(key, Uint8Array.from({ length: 64 }, () => Math.floor(random() * 256)));
  return key;
}

async function exists(key: string): Promise<boolean> {
  return (await env.CONTENT.head(key)) !== null;
}

async function segmentRowExists(key: string): Promise<boolean> {
  return (await env.DB.prepare("SELECT 1 AS x FROM segments WHERE key = ?").bind(key).first()) !== null;
}

describe("runCleanup", { timeout: 60_000 }, () => {
  it("deletes orphans older than an hour, keeps young ones and everything referenced", async () => {
    const key = await createKey(TEAM, "alice");
    const snapshots = [await datasetWithVersions(key, 3), await datasetWithVersions(key, 0)];
    const strangers = [await putOrphan(), await putOrphan(snapshots[0]!.id)];
    await env.CONTENT.put("elsewhere/not-ours", "x");

    const now = await runCleanup(env, Date.now());
    expect(now).toMatchObject({ orphansDeleted: 0, failed: [] });
    for (const k of strangers) expect(await exists(k)).toBe(true);

    const later = await runCleanup(env, LATER());
    expect(later).toMatchObject({ orphansDeleted: 2, failed: [] });
    for (const k of strangers) expect(await exists(k)).toBe(false);
    expect(await exists("elsewhere/not-ours")).toBe(true);
    const { results } = await env.DB.prepare("SELECT key FROM segments").all<{ key: string }>();
    for (const { key: k } of results) expect(await exists(k)).toBe(true);
    await expectUnchanged(snapshots);
  });

  it("removes segments compaction left unreferenced, an hour after that compaction", async () => {
    const key = await createKey(TEAM, "bob");
    const snapshot = await datasetWithVersions(key, 6);
    const latest = snapshot.versions[6]!.id;
    const before = await getVersionSegments(env.DB, latest);
    expect(await compactVersion(env, snapshot.id, latest)).toBe("compacted");
    // The last segment was in the latest version's list only; the others stay in older lists.
    const dropped = before[before.length - 1]!.key;
    await env.DB.prepare("UPDATE segments SET created = ? WHERE key = ?").bind("2000-01-01T00:00:00.000Z", dropped).run();

    expect(await runCleanup(env, Date.now())).toMatchObject({ unreferencedSegmentsDeleted: 0, failed: [] });
    expect(await segmentRowExists(dropped)).toBe(true);
    expect(await exists(dropped)).toBe(true);

    expect(await runCleanup(env, LATER())).toMatchObject({ unreferencedSegmentsDeleted: 1, failed: [] });
    expect(await segmentRowExists(dropped)).toBe(false);
    expect(await exists(dropped)).toBe(false);
    for (const s of before.slice(0, -1)) expect(await exists(s.key)).toBe(true);
    await expectUnchanged([snapshot]);
    expect((await appendRows(key, snapshot.id, "7,b7\n")).status).toBe(201);
  });

  it("removes the objects of a deleted dataset that the delete left behind", async () => {
    const key = await createKey(TEAM, "carol");
    const gone = await datasetWithVersions(key, 2);
    const kept = await datasetWithVersions(key, 1);
    const goneKeys = (await env.CONTENT.list({ prefix: `datasets/${gone.id}/` })).objects.map((o) => o.key);
    expect(goneKeys.length).toBe(3);
    expect(await deleteDatasetRows(env.DB, gone.id)).toBe(true);

    await runCleanup(env, LATER());
    for (const k of goneKeys) expect(await exists(k)).toBe(false);
    await expectUnchanged([kept]);
  });

  it("compacts a latest version whose list is past the bound (a compaction the append missed)", async () => {
    const key = await createKey(TEAM, "erin");
    const snapshot = await datasetWithVersions(key, 6);
    const latest = snapshot.versions[6]!.id;
    // Only this dataset's latest version (7 segments) is past a bound of 5 in this file.
    const lowBound: Env = Object.assign({}, env, { COMPACT_AFTER_SEGMENTS: "5" });
    expect(await runCleanup(lowBound, Date.now())).toMatchObject({ versionsCompacted: 1, failed: [] });
    expect(await getVersionSegments(env.DB, latest)).toHaveLength(1);
    expect(await getVersionSegments(env.DB, snapshot.versions[5]!.id)).toHaveLength(6);
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
    const key = await createKey(TEAM, "dave");
    const snapshot = await datasetWithVersions(key, 1);
    const orphan = await putOrphan();
    const controller = createScheduledController({ scheduledTime: LATER(), cron: "*/30 * * * *" });
    await worker.scheduled(controller, env);
    expect(await exists(orphan)).toBe(false);
    await expectUnchanged([snapshot]);
  });
});
