import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, download, expectProblem, gunzipText, send, write } from "./helpers/http.ts";
import { contentObjectCount } from "./helpers/storage.ts";

async function latest(id: string, key: TestKey | undefined) {
  const response = await send("GET", `/v1/dataset/${id}`, { key });
  return (await response.json()) as { version: string; name: string; visibility: string };
}

async function contentOf(id: string, version: string, key: TestKey | undefined): Promise<string> {
  return gunzipText(await send("GET", `/v1/dataset/${id}/${version}/data.csv.gz`, { key }));
}

describe("POST /v1/dataset/:id (append)", () => {
  it("adds rows as a new version with the append shape, 201 and Location", async () => {
    const key = await createKey("team-append", "alice");
    const created = await createDataset(key, "a,b\n1,2\n");
    const response = await appendRows(key, created.id, "3,4\n5,6\n");
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["id", "name", "owner", "team", "version", "visibility"]);
    expect(body.version).not.toBe(created.version);
    expect(response.headers.get("location")).toBe(`/v1/dataset/${created.id}/${body.version}`);
    expect(await contentOf(created.id, String(body.version), key)).toBe("a,b\n1,2\n3,4\n5,6\n");
    expect(await contentOf(created.id, created.version, key)).toBe("a,b\n1,2\n");
  });

  it("inserts the dataset's line break when the content does not end in one", async () => {
    const key = await createKey("team-append", "bob");
    const created = await createDataset(key, "a,b\r\n1,2");
    const appended = (await (await appendRows(key, created.id, "3,4")).json()) as { version: string };
    expect(await contentOf(created.id, appended.version, key)).toBe("a,b\r\n1,2\r\n3,4");
    const again = (await (await appendRows(key, created.id, "5,6\r\n")).json()) as { version: string };
    expect(await contentOf(created.id, again.version, key)).toBe("a,b\r\n1,2\r\n3,4\r\n5,6\r\n");
  });

  it("updates name/visibility/properties from a collection part in the same version", async () => {
    const key = await createKey("team-append", "carol");
    const created = await createDataset(key, "a\n1\n");
    const response = await write("POST", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "Renamed", visibility: "public" }), csvPart("2\n")]);
    expect(response.status).toBe(201);
    expect(await latest(created.id, undefined)).toMatchObject({ name: "Renamed", visibility: "public" });
  });

  it.each([
    ["a row with the wrong field count", "3,4\n5\n", "column_count_mismatch", { row: 2, expected: 2, found: 1 }],
    ["the header again", " A , b \n3,4\n", "header_row_in_append", {}],
    ["no rows", "", "empty_append", {}],
  ])("rejects %s with 422 and makes no version", async (_label, csv, code, extra) => {
    const key = await createKey("team-append", "dave");
    const created = await createDataset(key, "a,b\n1,2\n");
    const before = (await contentObjectCount());
    const body = await expectProblem(await appendRows(key, created.id, csv), 422, code);
    expect(body).toMatchObject(extra);
    expect((await latest(created.id, key)).version).toBe(created.version);
    expect((await contentObjectCount())).toBe(before);
  });

  it("requires the dataset part", async () => {
    const key = await createKey("team-append", "erin");
    const created = await createDataset(key, "a\n1\n");
    await expectProblem(await write("POST", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "x" })]), 400, "invalid_request");
  });

  it("If-Match on a stale version → 412, on the latest → 201", async () => {
    const key = await createKey("team-append", "frank");
    const created = await createDataset(key, "a\n1\n");
    const first = (await (await appendRows(key, created.id, "2\n")).json()) as { version: string };
    await expectProblem(await appendRows(key, created.id, "3\n", { "If-Match": `"${created.version}"` }), 412, "precondition_failed");
    const ok = await appendRows(key, created.id, "3\n", { "If-Match": `"${first.version}"` });
    expect(ok.status).toBe(201);
  });

  it("10 concurrent appends all land, each row exactly once, in one linear chain", async () => {
    const key = await createKey("team-append", "grace");
    const created = await createDataset(key, "n\n0\n", { name: "race" });
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => appendRows(key, created.id, `${i + 1}\n`)));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const final = await latest(created.id, key);
    const text = await contentOf(created.id, final.version, key);
    const rows = text.trim().split("\n");
    expect(rows[0]).toBe("n");
    expect(rows.slice(1).map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i));
    const seqs = await env.DB.prepare("SELECT seq FROM versions WHERE dataset_id = ? ORDER BY seq").bind(created.id).all<{ seq: number }>();
    expect(seqs.results.map((r) => r.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  });
});

describe("PUT /v1/dataset/:id", () => {
  it("replaces metadata only, keeping content, with the update shape", async () => {
    const key = await createKey("team-put", "alice");
    const created = await createDataset(key, "a,b\n1,2\n", { name: "Old", properties: { description: "d", key_words: ["k"] } });
    const response = await write("PUT", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "New", properties: { contact_name: "Al" } })]);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["id", "name", "owner", "source", "team", "version", "visibility"]);
    expect(body).toMatchObject({ name: "New", visibility: "private" });
    const record = (await (await send("GET", `/v1/dataset/${created.id}`, { key })).json()) as Record<string, unknown>;
    expect(record.properties).toEqual({ contact_name: "Al" });
    expect(await gunzipText(await download(String(body.source), key))).toBe("a,b\n1,2\n");
  });

  it("replaces content with a new header and column count", async () => {
    const key = await createKey("team-put", "bob");
    const created = await createDataset(key, "a,b\n1,2\n");
    const response = await write("PUT", `/v1/dataset/${created.id}`, key, [csvPart("x,y,z\n1,2,3\n", "new.csv")]);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { source: string; version: string };
    expect(body.source.endsWith("/new.csv.gz")).toBe(true);
    expect(await gunzipText(await download(body.source, key))).toBe("x,y,z\n1,2,3\n");
    expect((await appendRows(key, created.id, "4,5,6\n")).status).toBe(201);
    const old = (await (await send("GET", `/v1/dataset/${created.id}/${created.version}`, { key })).json()) as { name: string };
    expect(old.name).toBe("Test");
  });

  it("needs at least one part", async () => {
    const key = await createKey("team-put", "carol");
    const created = await createDataset(key, "a\n1\n");
    await expectProblem(await write("PUT", `/v1/dataset/${created.id}`, key, []), 400, "invalid_request");
  });
});
