// docs/api.md `Range` on downloads (RFC 9110 §14): a `.gz` answers one byte range with 206 and
// Content-Range, from the segments the range covers; past the end is 416; If-Range guards a
// resumed download; the result of a resume is the file, byte for byte.
import { describe, expect, it } from "vitest";
import { createDataset, expectProblem, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { NO_AUTO_COMPACTION, appendWith } from "./helpers/storage.ts";
import { mulberry32, randomInt } from "./helpers/random.ts";

async function bytes(response: Response): Promise<Uint8Array> {
  return new Uint8Array(await response.arrayBuffer());
}

async function multiSegment() {
  const key = await createKey("team-range", "ranger");
  const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from + i},row ${from + i} ${"x".repeat((from + i) % 37)}`).join("\n") + "\n";
  const created = await createDataset(key, "n,text\n" + rows(0, 400), { name: "ranges", visibility: "public" });
  let version = created.version;
  for (let a = 1; a <= 3; a++) {
    const response = await appendWith(NO_AUTO_COMPACTION, key, created.id, rows(a * 1000, 150));
    version = ((await response.json()) as { version: string }).version;
  }
  const path = `/v1/dataset/${created.id}/${version}/data.csv.gz`;
  const full = await send("GET", path);
  expect(full.status).toBe(200);
  expect(full.headers.get("accept-ranges")).toBe("bytes");
  return { key, path, etag: full.headers.get("etag")!, whole: await bytes(full) };
}

describe("Range on .gz downloads", () => {
  it("random single ranges across segment boundaries equal slices of the whole file", async () => {
    const { path, whole } = await multiSegment();
    const random = mulberry32(3);
    for (let trial = 0; trial < 40; trial++) {
      const start = randomInt(random, 0, whole.length - 1);
      const end = randomInt(random, start, whole.length - 1);
      const response = await send("GET", path, { headers: { Range: `bytes=${start}-${end}` } });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(response.headers.get("content-length")).toBe(String(end - start + 1));
      expect(await bytes(response)).toEqual(whole.slice(start, end + 1));
    }
    const suffix = await send("GET", path, { headers: { Range: "bytes=-100" } });
    expect(suffix.status).toBe(206);
    expect(await bytes(suffix)).toEqual(whole.slice(whole.length - 100));
  });

  it("a resumed download (If-Range with the ETag) completes the file byte for byte; a stale If-Range gets all of it", async () => {
    const { path, etag, whole } = await multiSegment();
    const cut = Math.floor(whole.length * 0.6);
    const rest = await send("GET", path, { headers: { Range: `bytes=${cut}-`, "If-Range": etag } });
    expect(rest.status).toBe(206);
    const resumed = new Uint8Array([...whole.slice(0, cut), ...(await bytes(rest))]);
    expect(resumed).toEqual(whole);
    const stale = await send("GET", path, { headers: { Range: `bytes=${cut}-`, "If-Range": '"another-version.gz"' } });
    expect(stale.status).toBe(200);
    expect(await bytes(stale)).toEqual(whole);
  });

  it("a range past the end is 416 with Content-Range: bytes */length; a multi-range gets the whole file", async () => {
    const { path, whole } = await multiSegment();
    const past = await send("GET", path, { headers: { Range: `bytes=${whole.length}-` } });
    expect(past.headers.get("content-range")).toBe(`bytes */${whole.length}`);
    await expectProblem(past, 416, "range_not_satisfiable");
    const multi = await send("GET", path, { headers: { Range: "bytes=0-1,5-6" } });
    expect(multi.status).toBe(200);
    expect(await bytes(multi)).toEqual(whole);
  });

  it("signed and anonymous alike, and never answered from a cached 200", async () => {
    const { key, path, whole } = await multiSegment();
    await send("GET", path); // the anonymous 200 is now in the cache
    for (const signer of [undefined, key]) {
      const response = await send("GET", path, { key: signer, headers: { Range: "bytes=0-9" } });
      expect(response.status).toBe(206);
      expect(await bytes(response)).toEqual(whole.slice(0, 10));
    }
  });
});

describe("Range on .csv downloads", () => {
  it("answers the CSV's own bytes, inflating only the parts a range covers, across parts and segments", async () => {
    const key = await createKey("team-range", "csv-ranger");
    const random = mulberry32(5);
    // Over 2 MiB: the created segment is cut into several independently inflatable parts.
    const line = (i: number) => `${i},"name ${i}, with comma",${Math.floor(random() * 1e9)},${"z".repeat(i % 50)}`;
    const csv = "id,name,value,pad\n" + Array.from({ length: 30_000 }, (_, i) => line(i)).join("\n") + "\n";
    const created = await createDataset(key, csv, { name: "csv ranges", visibility: "public" });
    const appended = await appendWith(NO_AUTO_COMPACTION, key, created.id, "30000,tail,1,\n30001,tail,2,\n");
    const version = ((await appended.json()) as { version: string }).version;
    const whole = new TextEncoder().encode(csv + "30000,tail,1,\n30001,tail,2,\n");
    const path = `/v1/dataset/${created.id}/${version}/data.csv`;
    const plain = await send("GET", path, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers.get("accept-ranges")).toBe("bytes");
    expect(await bytes(plain)).toEqual(whole);
    for (let trial = 0; trial < 25; trial++) {
      const start = randomInt(random, 0, whole.length - 1);
      const end = Math.min(whole.length - 1, start + randomInt(random, 0, 1_500_000));
      // Like a browser resuming: Range together with Accept-Encoding, answered in identity.
      const response = await send("GET", path, { headers: { Range: `bytes=${start}-${end}`, "Accept-Encoding": "gzip, deflate, br" } });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-encoding")).toBeNull();
      expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(await bytes(response)).toEqual(whole.slice(start, end + 1));
    }
    const tail = await send("GET", path, { headers: { Range: "bytes=-20" } });
    expect(new TextDecoder().decode(await bytes(tail))).toBe(new TextDecoder().decode(whole.slice(whole.length - 20)));
    await expectProblem(await send("GET", path, { headers: { Range: `bytes=${whole.length}-` } }), 416, "range_not_satisfiable");
  });

  it("a CSV first fetched gzip-encoded (as a browser does) resumes with that ETag in If-Range", async () => {
    const key = await createKey("team-range", "csv-resumer");
    const csv = "id,text\n" + Array.from({ length: 2000 }, (_, i) => `${i},line ${i}`).join("\n") + "\n";
    const created = await createDataset(key, csv, { name: "csv resume", visibility: "public" });
    const path = `/v1/dataset/${created.id}/${created.version}/data.csv`;
    const first = await send("GET", path, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    await first.arrayBuffer();
    const resumed = await send("GET", path, { headers: { Range: "bytes=1000-", "If-Range": etag, "Accept-Encoding": "gzip, deflate, br" } });
    expect(resumed.status).toBe(206);
    expect(new TextDecoder().decode(await bytes(resumed))).toBe(csv.slice(1000));
    // Another version's validator still starts over.
    const stale = await send("GET", path, { headers: { Range: "bytes=1000-", "If-Range": `"${crypto.randomUUID()}.csv.gz"` } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });
});
