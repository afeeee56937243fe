// An append sent as a resumable upload while a schema-only PUT changes the dataset's types
// (outside review, issue 27; docs/resumable-uploads.md): the upload goes on with the types the
// dataset has now. Rows already stored are checked again under them, so widening lets the
// upload commit, and narrowing refuses what no longer fits instead of committing it.
import { describe, expect, it } from "vitest";
import { collectionPart, createDataset, download, expectProblem, gunzipText, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { patchChunk, startUpload, uploadOffset } from "./helpers/uploads.ts";

const TEAM = "team-upload-schema-change";

async function retype(key: TestKey, id: string, fields: { name: string; type: string }[]): Promise<void> {
  const response = await write("PUT", `/v1/dataset/${id}`, key, [collectionPart({ schema: { fields } })]);
  expect(response.status, await response.clone().text()).toBe(200);
}

async function scoreType(key: TestKey, id: string): Promise<string | undefined> {
  const schema = (await (await send("GET", `/v1/dataset/${id}/latest/schema`, { key })).json()) as { fields: { name: string; type: string }[] };
  return schema.fields.find((f) => f.name === "score")?.type;
}

async function csvOf(key: TestKey, id: string): Promise<string> {
  const record = await send("GET", `/v1/dataset/${id}/latest`, { key });
  const source = /<([^>]+)>; rel="enclosure"/.exec(record.headers.get("link") ?? "")?.[1];
  return gunzipText(await download(source!, key));
}

describe("resumable append: a schema-only PUT while it runs", () => {
  it("commits rows the widened type takes, under the type the dataset has at the commit", async () => {
    const key = await createKey(TEAM, "widen");
    const created = await createDataset(key, "id,score\n1,2\n", { name: "Widened" });
    expect(await scoreType(key, created.id)).toBe("integer");
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    expect((await patchChunk(key, location, 0, "2,3\n", false)).status).toBe(204);
    await retype(key, created.id, [{ name: "score", type: "number" }]);
    // A decimal the widened type takes: the PUT the old error would advise was already sent.
    const last = await patchChunk(key, location, 4, "3,4.5\n", true);
    expect(last.status, await last.clone().text()).toBe(201);
    expect(await csvOf(key, created.id)).toBe("id,score\n1,2\n2,3\n3,4.5\n");
    expect(await scoreType(key, created.id)).toBe("number");
  });

  it("commits when the last chunk's rows fit both types", async () => {
    const key = await createKey(TEAM, "both");
    const created = await createDataset(key, "id,score\n1,2\n", { name: "Both" });
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    expect((await patchChunk(key, location, 0, "2,3\n", false)).status).toBe(204);
    await retype(key, created.id, [{ name: "score", type: "number" }]);
    const last = await patchChunk(key, location, 4, "3,4\n", true);
    expect(last.status, await last.clone().text()).toBe(201);
    expect(await scoreType(key, created.id)).toBe("number");
  });

  it("refuses a chunk when a narrowed type no longer takes a stored row; nothing is committed", async () => {
    const key = await createKey(TEAM, "narrow");
    const created = await createDataset(key, "id,score\n1,2\n", { name: "Narrowed", schema: { fields: [{ name: "score", type: "number" }] } });
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    expect((await patchChunk(key, location, 0, "2,2.5\n", false)).status).toBe(204);
    await retype(key, created.id, [{ name: "score", type: "integer" }]);
    const refused = await expectProblem(await patchChunk(key, location, 6, "3,4\n", true), 422, "schema_mismatch");
    expect(refused.row).toBe(1);
    expect(refused.value).toBe("2.5");
    expect(await uploadOffset(key, location)).toBe(6);
    expect(await csvOf(key, created.id)).toBe("id,score\n1,2\n");
    // Widened again, the same last chunk commits.
    await retype(key, created.id, [{ name: "score", type: "number" }]);
    expect((await patchChunk(key, location, 6, "3,4\n", true)).status).toBe(201);
    expect(await csvOf(key, created.id)).toBe("id,score\n1,2\n2,2.5\n3,4\n");
  });
});
