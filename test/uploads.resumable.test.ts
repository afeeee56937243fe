// Resumable uploads (draft-ietf-httpbis-resumable-upload-15 subset, docs/resumable-uploads.md):
// content sent in chunks cut anywhere (inside records, quoted fields, UTF-8 sequences, a BOM)
// ends byte-identical to the same content sent in one request; nothing is visible before the
// last chunk; creates, PUTs and appends; gzip uploads as whole members per chunk.
import { describe, expect, it } from "vitest";
import { appendRows, createDataset, download, expectProblem, gunzipText, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { mulberry32, randomCsvFile, randomInt, type Random } from "./helpers/random.ts";
import { patchChunk, startUpload, uploadInChunks, uploadOffset } from "./helpers/uploads.ts";

const TEAM = "team-resumable";
const encoder = new TextEncoder();

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
}

/** What a reader sees of a dataset: its CSV, its rows and its version record. */
async function observed(key: TestKey, id: string) {
  const record = await send("GET", `/v1/dataset/${id}/latest`, { key });
  const source = /<([^>]+)>; rel="enclosure"/.exec(record.headers.get("link") ?? "")?.[1];
  const csv = await gunzipText(await download(source!, key));
  const rows = await (await send("GET", `/v1/dataset/${id}/latest/rows?limit=1000`, { key })).json();
  const versions = (await (await send("GET", `/v1/dataset/${id}/versions`, { key })).json()) as { results: Record<string, unknown>[] };
  const { rows: count, bytes, columns } = versions.results[0]!;
  return { csv, rows, version: { count, bytes, columns } };
}


function randomCuts(random: Random, length: number): number[] {
  return Array.from({ length: randomInt(random, 1, 8) }, () => randomInt(random, 1, Math.max(1, length - 1)));
}

describe("resumable upload: content", () => {
  it("creates a dataset from chunks cut inside records", async () => {
    const key = await createKey(TEAM, "alice");
    const csv = 'id,name,note\n1,Ann,"multi\nline"\n2,Bob,plain\n3,Café,"quote ""x"""\n';
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Chunked" }, fileName: "people.csv" });
    expect(location).toMatch(/^\/v1\/uploads\/[0-9a-f-]{36}$/);
    const response = await uploadInChunks(key, location, encoder.encode(csv), [5, 17, 30, 47]);
    expect(response.status).toBe(201);
    expect(response.headers.get("upload-complete")).toBe("?1");
    const created = (await response.json()) as { id: string; name: string; source: string };
    expect(response.headers.get("location")).toBe(`/v1/dataset/${created.id}`);
    expect(created.name).toBe("Chunked");
    expect(created.source).toMatch(/\/people\.csv\.gz$/);
    const one = await createDataset(key, csv, { name: "One" }, "people.csv");
    expect(await observed(key, created.id)).toEqual(await observed(key, one.id));
  });

  it("ends byte-identical to a one-request upload for random content cut at random offsets", { timeout: 120_000 }, async () => {
    const key = await createKey(TEAM, "random");
    for (let seed = 1; seed <= 25; seed++) {
      const random = mulberry32(seed);
      const csv = randomCsvFile(random, 40);
      const bytes = encoder.encode(csv);
      const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: `seed ${seed}` } });
      const response = await uploadInChunks(key, location, bytes, randomCuts(random, bytes.length));
      if (response.status !== 201) throw new Error(`seed ${seed}: ${response.status} ${await response.text()}`);
      const created = (await response.json()) as { id: string };
      const one = await createDataset(key, csv, { name: `one ${seed}` });
      expect(await observed(key, created.id), `seed ${seed}`).toEqual(await observed(key, one.id));
    }
  });

  it("shows nothing before the last chunk commits", async () => {
    const key = await createKey(TEAM, "hidden");
    const before = (await (await send("GET", "/v1/dataset", { key })).json()) as { results: unknown[] };
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Hidden", visibility: "public" } });
    expect((await patchChunk(key, location, 0, "a,b\n1,2\n", false)).status).toBe(204);
    const during = (await (await send("GET", "/v1/dataset", { key })).json()) as { results: unknown[] };
    expect(during.results).toHaveLength(before.results.length);
    const response = await patchChunk(key, location, 8, "3,4\n", true);
    expect(response.status).toBe(201);
    const after = (await (await send("GET", "/v1/dataset", { key })).json()) as { results: unknown[] };
    expect(after.results).toHaveLength(before.results.length + 1);
  });

  it("appends rows and replaces content as one version each", async () => {
    const key = await createKey(TEAM, "writer");
    const created = await createDataset(key, "n,v\n1,a\n", { name: "Grows" });
    const appendAt = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {}, { "If-Match": `"${created.version}"` });
    const appended = await uploadInChunks(key, appendAt, encoder.encode('2,"b\nb"\n3,c\n'), [3, 9]);
    expect(appended.status).toBe(201);
    const version = (await appended.json()) as { version: string };
    expect(appended.headers.get("location")).toBe(`/v1/dataset/${created.id}/${version.version}`);
    const plain = await createDataset(key, "n,v\n1,a\n", { name: "Plain" });
    expect((await appendRows(key, plain.id, '2,"b\nb"\n3,c\n')).status).toBe(201);
    expect((await observed(key, created.id)).csv).toBe((await observed(key, plain.id)).csv);

    const replaceAt = await startUpload(key, "PUT", `/v1/dataset/${created.id}`, { collection: { name: "Replaced" }, fileName: "new.csv" });
    const replaced = await uploadInChunks(key, replaceAt, encoder.encode("x,y,z\n1,2,3\n"), [4]);
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as { name: string }).name).toBe("Replaced");
    expect((await observed(key, created.id)).csv).toBe("x,y,z\n1,2,3\n");
  });

  it("refuses an append upload whose rows do not fit, with the row number", async () => {
    const key = await createKey(TEAM, "misfit");
    const created = await createDataset(key, "n,v\n1,a\n", { name: "Strict" });
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    expect((await patchChunk(key, location, 0, "2,b\n3,c\n", false)).status).toBe(204);
    const last = await patchChunk(key, location, 8, "4,d,extra\n", true);
    // The problem comes from processing the whole content: the answer says the upload is complete (draft §4.4.2).
    expect(last.headers.get("upload-complete")).toBe("?1");
    const body = await expectProblem(last, 422, "column_count_mismatch");
    expect(body.row).toBe(3);
  });

  it("takes gzip content as whole gzip members per chunk", async () => {
    const key = await createKey(TEAM, "gzip");
    const csv = "a,b\n" + Array.from({ length: 300 }, (_, i) => `${i},"v ${i}"\n`).join("");
    const bytes = encoder.encode(csv);
    const members = [await gzip(bytes.subarray(0, 1000)), await gzip(bytes.subarray(1000, 2500)), await gzip(bytes.subarray(2500))];
    const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: "Zipped" }, fileName: "z.csv.gz" });
    let offset = 0;
    // A member cut in two is refused as a chunk; the upload stays where it was.
    await expectProblem(await patchChunk(key, location, 0, members[0]!.subarray(0, 20), false), 400, "invalid_request");
    expect(await uploadOffset(key, location)).toBe(0);
    for (const member of members) {
      expect((await patchChunk(key, location, offset, member, false)).status).toBe(204);
      offset += member.length;
    }
    // An empty last chunk ends a gzip upload too: no member, nothing to inflate.
    const response = await patchChunk(key, location, offset, new Uint8Array(0), true);
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; source: string };
    expect(created.source).toMatch(/\/z\.csv\.gz$/);
    expect((await observed(key, created.id)).csv).toBe(csv);
  });

  it("infers the same column types as a one-request upload, wherever the chunks are cut", { timeout: 60_000 }, async () => {
    const key = await createKey(TEAM, "types");
    let csv = "id,price,flag,day,late\n";
    for (let i = 0; i < 60; i++) csv += `${i},${i}.5,${i % 2 === 0 ? "true" : "FALSE"},2026-01-${String((i % 28) + 1).padStart(2, "0")},${i}\n`;
    csv += "60,7,true,2026-02-01,not a number\n";
    const bytes = encoder.encode(csv);
    const one = await createDataset(key, csv, { name: "typed one" });
    const expected = await observed(key, one.id);
    expect(JSON.stringify(expected.rows)).toContain('"type":"integer"');
    for (let seed = 1; seed <= 6; seed++) {
      const random = mulberry32(100 + seed);
      const location = await startUpload(key, "POST", "/v1/dataset", { collection: { name: `typed ${seed}` } });
      const response = await uploadInChunks(key, location, bytes, randomCuts(random, bytes.length));
      expect(response.status, `seed ${seed}`).toBe(201);
      const created = (await response.json()) as { id: string };
      expect(await observed(key, created.id), `seed ${seed}`).toEqual(expected);
    }
  });

  it("holds an append upload to the stored schema, failing with the row of the first misfit", async () => {
    const key = await createKey(TEAM, "typed-append");
    const created = await createDataset(key, "n,v\n1,2\n", { name: "Typed" });
    const location = await startUpload(key, "POST", `/v1/dataset/${created.id}`, {});
    expect((await patchChunk(key, location, 0, "2,3\n3,", false)).status).toBe(204);
    const body = await expectProblem(await patchChunk(key, location, 6, "4\n4,x\n", true), 422, "schema_mismatch");
    expect(body.row).toBe(3);
  });
});
