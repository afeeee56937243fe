// GET /v1/dataset/:id/versions (docs/api.md, docs/api.md#lists): the version chain newest first, each entry's exact
// fields, keyset pagination with Link, and the dataset's visibility rules.
import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, gunzipText, send, write } from "./helpers/http.ts";

let owner: TestKey;
let teammate: TestKey;
let outsider: TestKey;

beforeAll(async () => {
  owner = await createKey("rv-team", "rv-owner");
  teammate = await createKey("rv-team", "rv-mate");
  outsider = await createKey("rv-other", "rv-outsider");
});

interface Summary {
  version: string;
  created: string;
  parquet: string;
  rows: number;
  bytes: number;
  columns: string[];
}

async function versions(path: string, key?: TestKey) {
  const response = await send("GET", path, { key });
  expect(response.status).toBe(200);
  return { response, body: (await response.json()) as { results: Summary[] } };
}

async function newVersion(response: Response): Promise<string> {
  expect(response.status).toBeGreaterThanOrEqual(200);
  expect(response.status).toBeLessThan(300);
  return ((await response.json()) as { version: string }).version;
}

describe("GET /v1/dataset/:id/versions", () => {
  it("lists every version newest first with version, created, rows, bytes, columns, parquet", async () => {
    const d = await createDataset(owner, "city,pop\nOslo,700000\n", { name: "chain", visibility: "public" });
    const v2 = await newVersion(await appendRows(owner, d.id, "Bergen,290000\nTrondheim,210000"));
    const v3 = await newVersion(await appendRows(owner, d.id, "Stavanger,145000\n"));
    const v4 = await newVersion(await write("PUT", `/v1/dataset/${d.id}`, owner, [csvPart("a,b,c\r\n1,2,3\r\n")]));
    const v5 = await newVersion(await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ name: "renamed" })]));
    const { response, body } = await versions(`/v1/dataset/${d.id}/versions`);
    expect(Object.keys(body)).toEqual(["results"]);
    expect(response.headers.get("link")).toBeNull();
    expect(body.results.map((r) => r.version)).toEqual([v5, v4, v3, v2, d.version]);
    for (const r of body.results) {
      expect(Object.keys(r)).toEqual(["version", "created", "rows", "bytes", "columns", "parquet"]);
      // Its Parquet twin is built after the commit (test/columnar.twin.test.ts): either state may show here.
      expect(["pending", "ready"]).toContain(r.parquet);
      expect(r.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const created1 = "city,pop\nOslo,700000\n".length;
    const appended1 = "Bergen,290000\nTrondheim,210000".length;
    const appended2 = "Stavanger,145000\n".length;
    const replaced = "a,b,c\r\n1,2,3\r\n".length;
    const expected: Array<Pick<Summary, "rows" | "bytes" | "columns">> = [
      { rows: 1, bytes: replaced, columns: ["a", "b", "c"] },
      { rows: 1, bytes: replaced, columns: ["a", "b", "c"] },
      // "…Trondheim,210000" had no final line break, so the second append inserted one.
      { rows: 4, bytes: created1 + appended1 + 1 + appended2, columns: ["city", "pop"] },
      { rows: 3, bytes: created1 + appended1, columns: ["city", "pop"] },
      { rows: 1, bytes: created1, columns: ["city", "pop"] },
    ];
    expect(body.results.map(({ rows, bytes, columns }) => ({ rows, bytes, columns }))).toEqual(expected);
    const created = body.results.map((r) => r.created);
    expect([...created].sort().reverse()).toEqual(created);
    const record = (await (await send("GET", `/v1/dataset/${d.id}/${d.version}`)).json()) as { created: string };
    expect(body.results[4]?.created).toBe(record.created);
    expect(response.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300");
    expect((await send("GET", `/v1/dataset/${d.id}/versions`, { key: owner })).headers.get("cache-control")).toBe("private, no-store");
  });

  it("links each version's record to its own file, so a replace under a new name keeps old versions downloadable", async () => {
    const d = await createDataset(owner, "city\nOslo\n", { name: "renamed file", visibility: "public" }, "cities.csv");
    const replaced = await newVersion(await write("PUT", `/v1/dataset/${d.id}`, owner, [csvPart("town\nBergen\n", "towns 2026.csv")]));
    const enclosure = (response: Response) => /^<([^>]+)>; rel="enclosure"; type="application\/gzip"$/.exec(response.headers.get("link") ?? "")?.[1];
    const latest = await send("GET", `/v1/dataset/${d.id}`);
    expect(enclosure(latest)).toBe(`/v1/dataset/${d.id}/${replaced}/towns_2026.csv.gz`);
    expect(Object.keys(await latest.json()).sort()).toEqual(["created", "id", "name", "properties", "version", "visibility"]);
    expect(enclosure(await send("GET", `/v1/dataset/${d.id}/latest`))).toBe(`/v1/dataset/${d.id}/${replaced}/towns_2026.csv.gz`);
    const first = await send("GET", `/v1/dataset/${d.id}/${d.version}`, { key: owner });
    expect(enclosure(first)).toBe(d.source);
    const contents = [];
    for (const version of [replaced, d.version]) {
      const path = enclosure(await send("GET", `/v1/dataset/${d.id}/${version}`)) ?? "";
      const gzip = await send("GET", path);
      expect(gzip.status).toBe(200);
      const csv = await send("GET", path.replace(/\.gz$/, ""), { headers: { "Accept-Encoding": "identity" } });
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      contents.push([await gunzipText(gzip), await csv.text()]);
    }
    expect(contents).toEqual([
      ["town\nBergen\n", "town\nBergen\n"],
      ["city\nOslo\n", "city\nOslo\n"],
    ]);
  });

  it("paginates with limit, an opaque cursor and Link: rel=next until the chain ends", async () => {
    const d = await createDataset(owner, "n\n0\n", { name: "paged", visibility: "public" });
    const made = [d.version];
    for (let i = 1; i <= 6; i++) made.push(await newVersion(await appendRows(owner, d.id, `${i}\n`)));
    const seen: string[] = [];
    let path: string | null = `/v1/dataset/${d.id}/versions?limit=3`;
    let pages = 0;
    while (path !== null) {
      const { response, body } = await versions(path);
      pages++;
      expect(body.results.length).toBeLessThanOrEqual(3);
      seen.push(...body.results.map((r) => r.version));
      const link = response.headers.get("link");
      const match = link === null ? null : /^<([^>]+)>; rel="next"$/.exec(link);
      if (link !== null) {
        expect(match?.[1]).toMatch(new RegExp(`^/v1/dataset/${d.id}/versions\\?limit=3&cursor=[A-Za-z0-9_-]+$`));
      }
      path = match?.[1] ?? null;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
    const { body: rowsOfFirst } = await versions(`/v1/dataset/${d.id}/versions?limit=1`);
    expect(rowsOfFirst.results.map((r) => r.rows)).toEqual([7]);
  });

  it("pages stay stable while versions are added", async () => {
    const d = await createDataset(owner, "n\n0\n", { name: "stable", visibility: "public" });
    const v2 = await newVersion(await appendRows(owner, d.id, "1\n"));
    const first = await versions(`/v1/dataset/${d.id}/versions?limit=1`);
    expect(first.body.results.map((r) => r.version)).toEqual([v2]);
    await appendRows(owner, d.id, "2\n");
    const next = /<([^>]+)>/.exec(first.response.headers.get("link") ?? "")?.[1] ?? "";
    const second = await versions(next);
    expect(second.body.results.map((r) => r.version)).toEqual([d.version]);
    expect(second.response.headers.get("link")).toBeNull();
  });

  it("rejects a bad limit, a foreign cursor or an unknown parameter with 400 invalid_query", async () => {
    const d = await createDataset(owner, "n\n0\n", { name: "bad query", visibility: "public" });
    for (const query of ["limit=0", "limit=1001", "limit=abc", "limit=", "limit=2.5", "cursor=%21%21", "cursor=WzFd0", "offset=3", "latest=1"]) {
      await expectProblem(await send("GET", `/v1/dataset/${d.id}/versions?${query}`), 400, "invalid_query");
    }
    const listCursor = btoa(JSON.stringify(["2026-01-01T00:00:00.000Z", d.id])).replace(/=+$/, "");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/versions?cursor=${listCursor}`), 400, "invalid_query");
    await versions(`/v1/dataset/${d.id}/versions?limit=1000`);
  });

  it("404 for a missing dataset; 400 for a malformed id; 405 for writes", async () => {
    await expectProblem(await send("GET", `/v1/dataset/${crypto.randomUUID()}/versions`), 404, "not_found");
    await expectProblem(await send("GET", "/v1/dataset/NOT-A-UUID/versions"), 400, "invalid_request");
    const d = await createDataset(owner, "n\n0\n", { name: "no writes", visibility: "public" });
    const response = await send("POST", `/v1/dataset/${d.id}/versions`, { key: owner, body: new Uint8Array(0) });
    await expectProblem(response, 405, "method_not_allowed");
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("visibility", () => {
  it("a private dataset's versions: the owning team sees them, anonymous and other teams get 404", async () => {
    const d = await createDataset(owner, "n\n0\n", { name: "private chain", visibility: "private" });
    const path = `/v1/dataset/${d.id}/versions`;
    expect((await versions(path, teammate)).body.results.map((r) => r.version)).toEqual([d.version]);
    await expectProblem(await send("GET", path), 404, "not_found");
    await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
  });

  it("making a dataset private hides its version list, old versions included", async () => {
    const d = await createDataset(owner, "n\n0\n", { name: "soon private", visibility: "public" });
    expect((await versions(`/v1/dataset/${d.id}/versions`, outsider)).body.results.length).toBe(1);
    await newVersion(await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })]));
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/versions`), 404, "not_found");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/versions`, { key: outsider }), 404, "not_found");
    const { body } = await versions(`/v1/dataset/${d.id}/versions`, owner);
    expect(body.results.map((r) => r.version).at(-1)).toBe(d.version);
  });
});
