// SPEC B7 compaction: a long segment list becomes one object of the same bytes, after the
// append's response; the content, CRC and `.gz` bytes never change; running it twice, twice
// at once, or beside an append is safe; and appends after it keep working.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { signRequest } from "../src/auth/sign.ts";
import worker from "../src/index.ts";
import { compactVersion } from "../src/maintenance/compaction.ts";
import { getVersion, getVersionSegments } from "../src/storage/datasets-db.ts";
import { datasetPrefix } from "../src/storage/segment-store.ts";
import { ORIGIN, appendRows, createDataset, csvPart, multipart, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

const TEAM = "team-compaction";

/** A private dataset of `1 + appends` versions; every fourth append leaves no final line break. */
async function buildDataset(key: TestKey, appends: number) {
  const created = await createDataset(key, "id,text\n0,zero\n", { name: "compaction" });
  const versions = [{ id: created.version, content: "id,text\n0,zero\n" }];
  let content = versions[0]!.content;
  for (let i = 1; i <= appends; i++) {
    const rows = i % 4 === 0 ? `${i},"multi\nline ${i}"` : `${i},row ${i}\n`;
    const response = await appendRows(key, created.id, rows);
    expect(response.status).toBe(201);
    content = joined(content, rows);
    versions.push({ id: ((await response.json()) as { version: string }).version, content });
  }
  return { id: created.id, versions };
}

/** Appended rows follow a line break, inserted when the content does not end in one (SPEC B2). */
function joined(content: string, rows: string): string {
  return content + (content.endsWith("\n") ? "" : "\n") + rows;
}

async function gz(key: TestKey, id: string, version: string): Promise<{ bytes: Uint8Array; length: string | null }> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key });
  expect(response.status).toBe(200);
  return { length: response.headers.get("content-length"), bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function gunzip(bytes: Uint8Array): Promise<string> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

async function expectAllVersions(key: TestKey, id: string, versions: { id: string; content: string }[]) {
  for (const v of versions) expect(await gunzip((await gz(key, id, v.id)).bytes)).toBe(v.content);
}

async function objectCount(id: string): Promise<number> {
  return (await env.CONTENT.list({ prefix: datasetPrefix(id) })).objects.length;
}

describe("compactVersion", { timeout: 60_000 }, () => {
  it("swaps a long list for one segment holding the same bytes: .gz, length and CRC unchanged", async () => {
    const key = await createKey(TEAM, "alice");
    const { id, versions } = await buildDataset(key, 20);
    const latest = versions[versions.length - 1]!;
    const before = await gz(key, id, latest.id);
    const segmentsBefore = await getVersionSegments(env.DB, latest.id);
    const rowBefore = await getVersion(env.DB, id, latest.id);
    const rowsPath = `/v1/dataset/${id}/${latest.id}/rows?offset=3&limit=1000`;
    const rowsBefore = await (await send("GET", rowsPath, { key })).json();
    expect(rowsBefore).toMatchObject({ offset: 3, total: 21 });
    expect(segmentsBefore.length).toBe(25); // 21 row segments + 4 line breaks

    expect(await compactVersion(env, id, latest.id)).toBe("compacted");

    const segmentsAfter = await getVersionSegments(env.DB, latest.id);
    expect(segmentsAfter).toHaveLength(1);
    const sum = (pick: (s: (typeof segmentsBefore)[number]) => number) => segmentsBefore.reduce((n, s) => n + pick(s), 0);
    expect(segmentsAfter[0]).toMatchObject({
      compressedBytes: sum((s) => s.compressedBytes),
      rawBytes: sum((s) => s.rawBytes),
      rowCount: sum((s) => s.rowCount),
    });
    expect((await env.CONTENT.head(segmentsAfter[0]!.key))?.size).toBe(sum((s) => s.compressedBytes));
    expect(await getVersion(env.DB, id, latest.id)).toEqual(rowBefore);
    const after = await gz(key, id, latest.id);
    expect(after.length).toBe(before.length);
    expect(after.bytes).toEqual(before.bytes);
    expect(await gunzip(after.bytes)).toBe(latest.content);
    expect(await (await send("GET", rowsPath, { key })).json()).toEqual(rowsBefore);
    // Older versions keep their own lists and objects.
    expect(await getVersionSegments(env.DB, versions[10]!.id)).toHaveLength(13);
    await expectAllVersions(key, id, versions);
  });

  it("leaves a short list alone and is a no-op the second time", async () => {
    const key = await createKey(TEAM, "bob");
    const { id, versions } = await buildDataset(key, 3);
    expect(await compactVersion(env, id, versions[0]!.id)).toBe("unchanged");
    const latest = versions[3]!.id;
    expect(await compactVersion(env, id, latest)).toBe("compacted");
    const objects = await objectCount(id);
    expect(await compactVersion(env, id, latest)).toBe("unchanged");
    expect(await objectCount(id)).toBe(objects);
    await expectAllVersions(key, id, versions);
  });

  it("two compactions at once: one applies, the other discards its object", async () => {
    const key = await createKey(TEAM, "carol");
    const { id, versions } = await buildDataset(key, 8);
    const latest = versions[versions.length - 1]!.id;
    const objects = await objectCount(id);
    const outcomes = await Promise.all([compactVersion(env, id, latest), compactVersion(env, id, latest)]);
    expect(outcomes.sort()).toEqual(["compacted", "superseded"]);
    expect(await objectCount(id)).toBe(objects + 1);
    expect(await getVersionSegments(env.DB, latest)).toHaveLength(1);
    await expectAllVersions(key, id, versions);
  });

  it("is safe beside appends, and appends after it keep the order of every later version", async () => {
    const key = await createKey(TEAM, "dave");
    const built = await buildDataset(key, 8);
    const versions = [...built.versions];
    for (let round = 0; round < 4; round++) {
      const parent = versions[versions.length - 1]!;
      const rows = `${100 + round},raced ${round}\n`;
      const [, response] = await Promise.all([compactVersion(env, built.id, parent.id), appendRows(key, built.id, rows)]);
      expect(response.status).toBe(201);
      versions.push({ id: ((await response.json()) as { version: string }).version, content: joined(parent.content, rows) });
      const after = `${200 + round},after ${round}\n`;
      const next = await appendRows(key, built.id, after);
      expect(next.status).toBe(201);
      versions.push({ id: ((await next.json()) as { version: string }).version, content: joined(parent.content, rows) + after });
    }
    await expectAllVersions(key, built.id, versions);
  });
});

describe("compaction after an append", { timeout: 120_000 }, () => {
  it("the append that passes the bound (64) compacts its version after the response", async () => {
    const key = await createKey(TEAM, "erin");
    const { id, versions } = await buildDataset(key, 47); // 48 row segments + 11 line breaks
    for (const rows of ["48,x\n", "49,y\n"]) expect((await appendRows(key, id, rows)).status).toBe(201);
    const latest = (await (await send("GET", `/v1/dataset/${id}`, { key })).json()) as { version: string };
    expect(await getVersionSegments(env.DB, latest.version)).toHaveLength(61);
    for (const rows of ["50,x\n", "51,x\n", "52,x\n"]) expect((await appendRows(key, id, rows)).status).toBe(201);
    const full = (await (await send("GET", `/v1/dataset/${id}`, { key })).json()) as { version: string };
    expect(await getVersionSegments(env.DB, full.version)).toHaveLength(64); // at the bound: not compacted

    const url = `${ORIGIN}/v1/dataset/${id}`;
    const { body, contentType } = multipart([csvPart("53,over the bound\n")]);
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key);
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request(url, { method: "POST", headers, body }), env, ctx);
    expect(response.status).toBe(201);
    const { version } = (await response.json()) as { version: string };
    await waitOnExecutionContext(ctx);

    expect(await getVersionSegments(env.DB, version)).toHaveLength(1);
    expect(await getVersionSegments(env.DB, full.version)).toHaveLength(64);
    const expected = versions[versions.length - 1]!.content + "48,x\n49,y\n50,x\n51,x\n52,x\n53,over the bound\n";
    expect(await gunzip((await gz(key, id, version)).bytes)).toBe(expected);
    const next = await appendRows(key, id, "54,after\n");
    const nextVersion = ((await next.json()) as { version: string }).version;
    expect(await getVersionSegments(env.DB, nextVersion)).toHaveLength(2);
    expect(await gunzip((await gz(key, id, nextVersion)).bytes)).toBe(expected + "54,after\n");
  });

  it("70 appends in a row: every version stays byte-identical while compactions race the appends", async () => {
    const key = await createKey(TEAM, "frank");
    const { id, versions } = await buildDataset(key, 70);
    const latest = versions[versions.length - 1]!;
    await vi.waitFor(async () => expect((await getVersionSegments(env.DB, latest.id)).length).toBeLessThanOrEqual(64), {
      timeout: 10_000,
      interval: 100,
    });
    await expectAllVersions(key, id, versions);
  });
});
