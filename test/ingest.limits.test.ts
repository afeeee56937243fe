// Streaming ingest at size (issue "Ingest and append at any size"): a 20 MB upload streamed
// through the real handler, client-gzipped uploads, a decompression bomb, an over-limit body,
// a digest mismatch on a large body, and 20 concurrent appends. The test config lowers
// MAX_UPLOAD_BYTES to 32 MiB and MAX_CONTENT_BYTES to 64 MiB (vitest.config.ts).
import { env, exports } from "cloudflare:workers";
import { gzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import { createKey } from "./helpers/keys.ts";
import { ORIGIN, appendRows, collectionPart, createDataset, csvPart, download, expectProblem, gunzipText, multipart, send, write } from "./helpers/http.ts";
import { contentObjectCount } from "./helpers/storage.ts";

function bigCsv(rows: number): string {
  let text = "id,name,value\n";
  for (let i = 0; i < rows; i++) text += `${i},"name ${i}, quoted",${(i * 1.5).toFixed(1)}\n`;
  return text;
}

async function objectCount(): Promise<number> {
  return (await contentObjectCount());
}

describe("streamed ingest at size", () => {
  it("a 20 MB upload round-trips byte for byte", async () => {
    const key = await createKey("ingest-team", "big");
    const csv = bigCsv(700_000);
    expect(csv.length).toBeGreaterThan(20_000_000);
    const created = await createDataset(key, csv, { name: "big" });
    expect(await gunzipText(await download(created.source, key))).toBe(csv);
  });

  it("a client-gzipped dataset part is inflated, validated and stored", async () => {
    const key = await createKey("ingest-team", "gz");
    const csv = "a,b\n1,2\n3,4\n";
    const gz = gzipSync(new TextEncoder().encode(csv));
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "gz" }), csvPart(gz, "upload.csv.gz", "application/gzip")]);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { source: string; id: string };
    expect(body.source.endsWith("/upload.csv.gz")).toBe(true);
    expect(await gunzipText(await download(body.source, key))).toBe(csv);
  });

  it("a client-gzipped append is validated like any other", async () => {
    const key = await createKey("ingest-team", "gz2");
    const body = await createDataset(key, "a,b\n1,2\n");
    const bad = gzipSync(new TextEncoder().encode("5,6\n7\n"));
    await expectProblem(await write("POST", `/v1/dataset/${body.id}`, key, [csvPart(bad, "more.gz")]), 422, "column_count_mismatch");
  });

  it("a corrupt or truncated gzip dataset part gets 400 and creates nothing", async () => {
    const key = await createKey("ingest-team", "badgz");
    const valid = gzipSync(new TextEncoder().encode("a,b\n".repeat(10_000)));
    const garbage = Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff, ...new TextEncoder().encode("not deflate data at all")]);
    const truncated = valid.slice(0, Math.floor(valid.length / 2));
    const before = await objectCount();
    for (const bytes of [garbage, truncated]) {
      const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "badgz" }), csvPart(bytes, "data.csv.gz", "application/gzip")]);
      const problem = await expectProblem(response, 400, "invalid_request");
      expect(problem.detail).toMatch(/gzip/);
    }
    expect(await objectCount()).toBe(before);
    const listed = await send("GET", "/v1/dataset?owner=badgz", { key });
    expect(((await listed.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it("a decompression bomb gets 413 and stores nothing", async () => {
    const key = await createKey("ingest-team", "bomb");
    const zeros = new Uint8Array(80 * 1024 * 1024).fill(0x31);
    const bomb = gzipSync(zeros, { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = await objectCount();
    await expectProblem(await write("POST", "/v1/dataset", key, [collectionPart({ name: "bomb" }), csvPart(bomb, "bomb.csv.gz", "application/gzip")]), 413, "payload_too_large");
    expect(await objectCount()).toBe(before);
  });

  it("a body over MAX_UPLOAD_BYTES gets 413 and stores nothing", async () => {
    const key = await createKey("ingest-team", "huge");
    const before = await objectCount();
    const csv = bigCsv(1_100_000);
    expect(csv.length).toBeGreaterThan(33_554_432);
    await expectProblem(await write("POST", "/v1/dataset", key, [collectionPart({ name: "huge" }), csvPart(csv)]), 413, "payload_too_large");
    expect(await objectCount()).toBe(before);
  });

  it("a digest mismatch on a large body gets 401 and leaves nothing reachable", async () => {
    const key = await createKey("ingest-team", "digest");
    const signedFor = multipart([collectionPart({ name: "d" }), csvPart(bigCsv(200_000))], "fixed-boundary-ingest");
    const sent = signedFor.body.slice();
    sent[sent.length - 100] = 0x39;
    const url = `${ORIGIN}/v1/dataset`;
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": signedFor.contentType }, body: signedFor.body }, key);
    const before = await objectCount();
    const response = await exports.default.fetch(new Request(url, { method: "POST", headers, body: sent }));
    await expectProblem(response, 401, "digest_mismatch");
    expect(await objectCount()).toBe(before);
    const listed = await send("GET", "/v1/dataset?owner=digest", { key });
    expect(((await listed.json()) as { results: unknown[] }).results).toEqual([]);
  });

  it("20 concurrent appends all land, each row once", async () => {
    const key = await createKey("ingest-team", "race20");
    const created = await createDataset(key, "n\n0\n");
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => appendRows(key, created.id, `${i + 1}\n`)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const text = await gunzipText(await download(`/v1/dataset/${created.id}/latest/data.csv.gz`, key));
    const values = text.trim().split("\n").slice(1).map(Number).sort((a, b) => a - b);
    expect(values).toEqual(Array.from({ length: 21 }, (_, i) => i));
  });
});
