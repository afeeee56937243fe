// docs/storage-protocol.md tiered compaction: after each append the list is in the merge policy's shape, a merge
// copies only the trailing run of small segments and is shared by every version that holds that
// run, the content, CRC and `.gz` bytes never change, and running it twice, at once, beside
// appends, beside a delete or with R2 failing is safe.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_MERGE_POLICY, planMerge } from "../src/storage/compaction-plan.ts";
import { compactVersion } from "../src/maintenance/compaction.ts";
import { getVersion, getVersionSegments } from "../src/storage/datasets-db.ts";
import { createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { MERGE_ALL, NO_AUTO_COMPACTION, TIMINGS, appendWith, pendingRows, untrackedObjects, wrapBinding } from "./helpers/storage.ts";

const TEAM = "team-compaction";

interface Built {
  id: string;
  versions: { id: string; content: string }[];
}

/** A created table far larger than one appended row, as real datasets are. */
const BIG = "id,text\n" + Array.from({ length: 2000 }, (_, i) => `${-i - 1},created row ${(i * 7919) % 10007}`).join("\n") + "\n";

/** `1 + appends` versions; every fourth append leaves no final line break. */
async function buildDataset(key: TestKey, appends: number, workerEnv: Env = NO_AUTO_COMPACTION, created_csv = BIG): Promise<Built> {
  const created = await createDataset(key, created_csv, { name: "compaction" });
  const versions = [{ id: created.version, content: created_csv }];
  for (let i = 1; i <= appends; i++) await appendTo(key, { id: created.id, versions }, i % 4 === 0 ? `${i},"multi\nline ${i}"` : `${i},row ${i}\n`, workerEnv);
  return { id: created.id, versions };
}

async function appendTo(key: TestKey, built: Built, rows: string, workerEnv: Env = NO_AUTO_COMPACTION): Promise<string> {
  const response = await appendWith(workerEnv, key, built.id, rows);
  expect(response.status).toBe(201);
  const version = ((await response.json()) as { version: string }).version;
  const parent = built.versions[built.versions.length - 1]!.content;
  built.versions.push({ id: version, content: parent + (parent.endsWith("\n") ? "" : "\n") + rows });
  return version;
}

async function gz(key: TestKey, id: string, version: string): Promise<Uint8Array> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

async function gunzip(bytes: Uint8Array): Promise<string> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

async function expectAllVersions(key: TestKey, built: Built) {
  for (const v of built.versions) expect(await gunzip(await gz(key, built.id, v.id))).toBe(v.content);
}

const sizes = async (version: string) => (await getVersionSegments(env.DB, version)).map((s) => s.compressedBytes);

describe("compaction after each append", { timeout: 120_000 }, () => {
  it("keeps every list in the policy's shape and every version byte-identical", async () => {
    const key = await createKey(TEAM, "alice");
    const built = await buildDataset(key, 0);
    let merged = false;
    for (let i = 1; i <= 40; i++) {
      const version = await appendTo(key, built, `${i},appended row ${i}\n`, env);
      // The dataset's sequencer compacts after its answer: the list gets in shape soon after.
      await vi.waitFor(
        async () => {
          const list = await sizes(version);
          expect(planMerge(list, DEFAULT_MERGE_POLICY), `after append ${i}: ${list.join(" ")}`).toBeNull();
          expect(list.length).toBeLessThanOrEqual(DEFAULT_MERGE_POLICY.maxSegments);
          merged ||= list.length < i + 1;
        },
        { timeout: 10_000, interval: 20 },
      );
    }
    expect(merged).toBe(true);
    await expectAllVersions(key, built);
    const rows = (await (await send("GET", `/v1/dataset/${built.id}/latest/rows?offset=2037&limit=5`, { key })).json()) as { rows: unknown[][] };
    expect(rows.rows).toEqual([[38, "appended row 38"], [39, "appended row 39"], [40, "appended row 40"]]);
    expect(await untrackedObjects(built.id)).toEqual([]);
  });
});

describe("compactVersion", { timeout: 60_000 }, () => {
  it("merges only the trailing run: the first segment is never copied, .gz, length, CRC and rows unchanged", async () => {
    const key = await createKey(TEAM, "bob");
    const built = await buildDataset(key, 12);
    const latest = built.versions[12]!.id;
    const before = await getVersionSegments(env.DB, latest);
    const rowBefore = await getVersion(env.DB, built.id, latest);
    const gzBefore = await gz(key, built.id, latest);
    const rowsPath = `/v1/dataset/${built.id}/${latest}/rows?offset=3&limit=1000`;
    const rowsBefore = await (await send("GET", rowsPath, { key })).json();

    expect(await compactVersion(env, built.id, latest, DEFAULT_MERGE_POLICY, TIMINGS)).toBe("compacted");

    const after = await getVersionSegments(env.DB, latest);
    expect(after.length).toBeLessThan(before.length);
    expect(after[0]!.key).toBe(before[0]!.key);
    expect(planMerge(after.map((s) => s.compressedBytes))).toBeNull();
    const total = (list: typeof before, pick: (s: (typeof before)[number]) => number) => list.reduce((n, s) => n + pick(s), 0);
    expect(total(after, (s) => s.compressedBytes)).toBe(total(before, (s) => s.compressedBytes));
    expect(total(after, (s) => s.rowCount)).toBe(total(before, (s) => s.rowCount));
    for (const s of after) expect((await env.CONTENT.head(s.key))?.size).toBe(s.compressedBytes);
    expect(await getVersion(env.DB, built.id, latest)).toEqual(rowBefore);
    expect(await gz(key, built.id, latest)).toEqual(gzBefore);
    expect(await (await send("GET", rowsPath, { key })).json()).toEqual(rowsBefore);
    await expectAllVersions(key, built);
  });

  it("a merged run is shared by every version holding it, later ones included; objects still in use are not collected", async () => {
    const key = await createKey(TEAM, "carol");
    const built = await buildDataset(key, 0);
    const fanIn = DEFAULT_MERGE_POLICY.fanIn;
    for (let i = 1; i <= fanIn + 2; i++) await appendTo(key, built, `${i},appended ${i}\n`);
    const lists = [];
    for (const v of built.versions) lists.push((await getVersionSegments(env.DB, v.id)).map((s) => s.key));
    const full = fanIn; // version index holding [created, a1..a_fanIn]: the first full tier
    const run = lists[full]!.slice(1);
    // Compact that version: it and the two appended after it hold the run.
    expect(await compactVersion(env, built.id, built.versions[full]!.id, DEFAULT_MERGE_POLICY, TIMINGS)).toBe("compacted");
    const after = [];
    for (const v of built.versions) after.push((await getVersionSegments(env.DB, v.id)).map((s) => s.key));
    const merged = after[full]![1]!;
    expect(run).not.toContain(merged);
    expect(after[full]).toEqual([lists[0]![0], merged]);
    expect(after[full + 1]).toEqual([lists[0]![0], merged, lists[full + 1]![full + 1]]);
    expect(after[full + 2]).toEqual([lists[0]![0], merged, lists[full + 2]![full + 1], lists[full + 2]![full + 2]]);
    for (let v = 0; v < full; v++) expect(after[v]).toEqual(lists[v]);
    // All but the run's last segment are still used by the versions before; that one by none now.
    const replaced = (await pendingRows(built.id)).filter((r) => r.reason === "replaced").map((r) => r.key);
    expect(replaced).toEqual([run[run.length - 1]]);
    for (const row of await pendingRows(built.id)) expect(row.collect_after).toBeGreaterThan(Date.now() + TIMINGS.readGraceMs - 60_000);
    await expectAllVersions(key, built);
  });

  it("a well-shaped list is left alone, and the second run is a no-op", async () => {
    const key = await createKey(TEAM, "dave");
    const built = await buildDataset(key, 3);
    const latest = built.versions[3]!.id;
    expect(await compactVersion(env, built.id, latest, DEFAULT_MERGE_POLICY, TIMINGS)).toBe("unchanged");
    expect(await compactVersion(env, built.id, latest, MERGE_ALL, TIMINGS)).toBe("compacted");
    const segments = async () => (await env.CONTENT.list({ prefix: `datasets/${built.id}/segments/` })).objects.length;
    const objects = await segments();
    expect(await compactVersion(env, built.id, latest, MERGE_ALL, TIMINGS)).toBe("unchanged");
    expect(await segments()).toBe(objects);
    await expectAllVersions(key, built);
  });

  it("two compactions at once: one applies, the loser's object stays an unclaimed intent", async () => {
    const key = await createKey(TEAM, "erin");
    const built = await buildDataset(key, 8);
    const latest = built.versions[8]!.id;
    const outcomes = await Promise.all([
      compactVersion(env, built.id, latest, MERGE_ALL, TIMINGS),
      compactVersion(env, built.id, latest, MERGE_ALL, TIMINGS),
    ]);
    expect(outcomes).toContain("compacted");
    expect(await getVersionSegments(env.DB, latest)).toHaveLength(1);
    const used = new Set((await getVersionSegments(env.DB, latest)).map((s) => s.key));
    const unclaimed = (await pendingRows(built.id)).filter((r) => r.reason === "upload");
    for (const row of unclaimed) expect(used.has(row.key)).toBe(false);
    expect(await untrackedObjects(built.id)).toEqual([]);
    await expectAllVersions(key, built);
  });

  it("is safe beside appends: every later version keeps its order", async () => {
    const key = await createKey(TEAM, "frank");
    const built = await buildDataset(key, 8);
    for (let round = 0; round < 4; round++) {
      const parent = built.versions[built.versions.length - 1]!;
      const rows = `${100 + round},raced ${round}\n`;
      const [, response] = await Promise.all([
        compactVersion(env, built.id, parent.id, MERGE_ALL, TIMINGS),
        appendWith(NO_AUTO_COMPACTION, key, built.id, rows),
      ]);
      expect(response.status).toBe(201);
      const joined = parent.content + (parent.content.endsWith("\n") ? "" : "\n") + rows;
      built.versions.push({ id: ((await response.json()) as { version: string }).version, content: joined });
      await appendTo(key, built, `${200 + round},after ${round}\n`);
    }
    await expectAllVersions(key, built);
  });

  it("a failed R2 write changes nothing: lists as they were, the half-made object only an intent", async () => {
    const key = await createKey(TEAM, "grace");
    const built = await buildDataset(key, 6);
    const latest = built.versions[6]!.id;
    const before = await getVersionSegments(env.DB, latest);
    const failingBucket = wrapBinding(env.CONTENT, {
      put: async () => {
        throw new Error("injected: R2 put failed");
      },
    });
    const broken = { DB: env.DB, CONTENT: failingBucket };
    await expect(compactVersion(broken, built.id, latest, MERGE_ALL, TIMINGS)).rejects.toThrow("injected");
    expect(await getVersionSegments(env.DB, latest)).toEqual(before);
    expect((await pendingRows(built.id)).filter((r) => r.reason === "upload")).toHaveLength(1);
    await expectAllVersions(key, built);
  });

  it("racing a delete: the merge does not apply, and the dataset stays deleted", async () => {
    const key = await createKey(TEAM, "heidi");
    const built = await buildDataset(key, 6);
    const latest = built.versions[6]!.id;
    const deletingBucket = wrapBinding(env.CONTENT, {
      put: async (...args: Parameters<R2Bucket["put"]>) => {
        const stored = await env.CONTENT.put(...args);
        expect((await send("DELETE", `/v1/dataset/${built.id}`, { key })).status).toBe(204);
        return stored;
      },
    });
    expect(await compactVersion({ DB: env.DB, CONTENT: deletingBucket }, built.id, latest, MERGE_ALL, TIMINGS)).toBe("superseded");
    expect((await send("GET", `/v1/dataset/${built.id}`, { key })).status).toBe(404);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM version_segments WHERE version_id = ?").bind(latest).first<{ n: number }>()).toEqual({ n: 0 });
    expect(await untrackedObjects(built.id)).toEqual([]);
  });
});
