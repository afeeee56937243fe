// GET /v1/dataset/:id/:version/rows (docs/api.md): JSON rows read from only the segments that hold
// them — offsets across segment boundaries, decoded RFC 4180 cells, bounds, visibility, `latest`.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getVersionSegments } from "../src/storage/datasets-db.ts";
import { NO_AUTO_COMPACTION, appendWith } from "./helpers/storage.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, expectProblem, send, write } from "./helpers/http.ts";

let owner: TestKey;
let teammate: TestKey;
let outsider: TestKey;

interface RowsBody {
  columns: string[];
  rows: string[][];
  offset: number;
  total: number;
}

/**
 * The window as text, for the tests of which rows come back: typed cells (docs/column-types.md, tested in
 * readers.typed-rows.test.ts) are read back as the text they came from.
 */
async function rows(path: string, key?: TestKey): Promise<RowsBody> {
  const response = await send("GET", path, { key });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
  const { schema, matched, partial, ...body } = JSON.parse(text) as RowsBody & { schema: unknown; rows: unknown[][]; matched: number; partial: boolean };
  expect(schema).toBeTypeOf("object");
  // Without where, every row matches (docs/queries.md).
  expect(matched).toBe(body.total);
  expect(partial).toBe(false);
  return { ...body, rows: body.rows.map((row) => row.map((cell) => (cell === null ? "" : String(cell)))) };
}

async function appended(response: Response): Promise<string> {
  const text = await response.text();
  if (response.status !== 201) throw new Error(`append failed: ${response.status} ${text}`);
  return (JSON.parse(text) as { version: string }).version;
}

// Segments: create (header + 2 rows), append (2 rows, no final line break), the inserted
// line-break segment (0 rows), append (1 row), append (3 rows).
const COLUMNS = ["id", "name", "note"];
const EXPECTED = [
  ["1", "Smith, John", "line1\nline2"],
  ["2", "plain", 'say "hi"'],
  ["3", "c", ""],
  ["4", "d", "multi\r\nline, with comma"],
  ["5", "", "e"],
  ["6", "f", "z"],
  ["7", "Zürich 😀", "w"],
  ["8", "h", '"'],
];
let multi: { id: string; version: string };
let multiLatest: string;

beforeAll(async () => {
  owner = await createKey("rr-team", "rr-owner");
  teammate = await createKey("rr-team", "rr-mate");
  outsider = await createKey("rr-other", "rr-outsider");
  multi = await createDataset(owner, 'id,name,note\n1,"Smith, John","line1\nline2"\n2,plain,"say ""hi"""\n', { name: "segments", visibility: "public" });
  // Without compaction after the appends, so the list keeps the shape described above.
  await appended(await appendWith(NO_AUTO_COMPACTION, owner, multi.id, '3,c,\n4,d,"multi\r\nline, with comma"'));
  await appended(await appendWith(NO_AUTO_COMPACTION, owner, multi.id, '5,,e\n'));
  multiLatest = await appended(await appendWith(NO_AUTO_COMPACTION, owner, multi.id, '6,f,z\n7,Zürich 😀,w\n8,h,""""\n'));
});

describe("GET /v1/dataset/:id/:version/rows", () => {
  it("answers columns, schema, rows, offset, total, matched, partial in that order, with decoded cells typed by the schema", async () => {
    const response = await send("GET", `/v1/dataset/${multi.id}/${multiLatest}/rows`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    // An explicit version id: immutable (docs/edge-and-caching.md).
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = (await response.json()) as RowsBody & { schema: unknown };
    expect(Object.keys(body)).toEqual(["columns", "schema", "rows", "offset", "total", "matched", "partial"]);
    expect(body.schema).toEqual({
      fields: [{ name: "id", type: "integer" }, { name: "name", type: "string" }, { name: "note", type: "string" }],
      missingValues: [""],
    });
    const typed = EXPECTED.map(([id, name, note]) => [Number(id), name === "" ? null : name, note === "" ? null : note]);
    expect(body).toEqual({ columns: COLUMNS, schema: body.schema, rows: typed, offset: 0, total: 8, matched: 8, partial: false });
    const signed = await send("GET", `/v1/dataset/${multi.id}/${multiLatest}/rows`, { key: owner });
    expect(signed.headers.get("cache-control")).toBe("private, no-store");
  });

  it("every offset and limit gives the same window as slicing the whole table, across all segment boundaries", { timeout: 30_000 }, async () => {
    const segments = await getVersionSegments(env.DB, multiLatest);
    expect(segments.map((s) => s.rowCount)).toEqual([2, 2, 0, 1, 3]);
    for (let offset = 0; offset <= 9; offset++) {
      const limits = Array.from({ length: 9 }, (_, i) => i + 1);
      const bodies = await Promise.all(limits.map((limit) => rows(`/v1/dataset/${multi.id}/${multiLatest}/rows?offset=${offset}&limit=${limit}`)));
      bodies.forEach((body, i) => {
        const limit = limits[i] ?? 0;
        expect(body, `offset ${offset} limit ${limit}`).toEqual({ columns: COLUMNS, rows: EXPECTED.slice(offset, offset + limit), offset, total: 8 });
      });
    }
  });

  it("each version shows its own rows; `latest` is the newest version", async () => {
    const first = await rows(`/v1/dataset/${multi.id}/${multi.version}/rows`);
    expect(first).toEqual({ columns: COLUMNS, rows: EXPECTED.slice(0, 2), offset: 0, total: 2 });
    expect(await rows(`/v1/dataset/${multi.id}/latest/rows?offset=5&limit=2`)).toEqual({ columns: COLUMNS, rows: EXPECTED.slice(5, 7), offset: 5, total: 8 });
    const d = await createDataset(owner, "n\n1\n", { name: "latest moves", visibility: "public" });
    expect((await rows(`/v1/dataset/${d.id}/latest/rows`)).rows).toEqual([["1"]]);
    await appended(await appendRows(owner, d.id, "2\n"));
    expect(await rows(`/v1/dataset/${d.id}/latest/rows`)).toEqual({ columns: ["n"], rows: [["1"], ["2"]], offset: 0, total: 2 });
  });

  it("an offset at or past the end answers no rows and the total", async () => {
    for (const offset of [8, 9, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(await rows(`/v1/dataset/${multi.id}/${multiLatest}/rows?offset=${offset}`)).toEqual({ columns: COLUMNS, rows: [], offset, total: 8 });
    }
  });

  it("a header-only dataset has no rows", async () => {
    const d = await createDataset(owner, "a,b\n", { name: "header only", visibility: "public" });
    expect(await rows(`/v1/dataset/${d.id}/latest/rows`)).toEqual({ columns: ["a", "b"], rows: [], offset: 0, total: 0 });
    await appended(await appendRows(owner, d.id, "1,2\n"));
    expect(await rows(`/v1/dataset/${d.id}/latest/rows`)).toEqual({ columns: ["a", "b"], rows: [["1", "2"]], offset: 0, total: 1 });
  });

  it("keeps CRLF content, blank-line records of a one-column table and a U+FEFF inside the data", async () => {
    const crlf = await createDataset(owner, '\uFEFFa,b\r\n"x\r\ny",1\r\n\uFEFFz,2\r\n', { name: "crlf", visibility: "public" });
    expect(await rows(`/v1/dataset/${crlf.id}/latest/rows?offset=1`)).toEqual({ columns: ["a", "b"], rows: [["\uFEFFz", "2"]], offset: 1, total: 2 });
    expect((await rows(`/v1/dataset/${crlf.id}/latest/rows`)).rows).toEqual([["x\r\ny", "1"], ["\uFEFFz", "2"]]);
    const single = await createDataset(owner, "v\n1\n\n\n2\n\n", { name: "blank lines", visibility: "public" });
    await appended(await appendRows(owner, single.id, "\n3\n"));
    const all = await rows(`/v1/dataset/${single.id}/latest/rows`);
    expect(all).toEqual({ columns: ["v"], rows: [["1"], [""], [""], ["2"], [""], ["3"]], offset: 0, total: 6 });
    for (let offset = 0; offset < 6; offset++) {
      expect((await rows(`/v1/dataset/${single.id}/latest/rows?offset=${offset}&limit=2`)).rows).toEqual(all.rows.slice(offset, offset + 2));
    }
  });

  it("limit defaults to 100 and may be 1-1000", async () => {
    const body = Array.from({ length: 1200 }, (_, i) => `${i}\n`).join("");
    const d = await createDataset(owner, `n\n${body}`, { name: "many", visibility: "public" });
    const numbers = (r: RowsBody) => r.rows.map((row) => Number(row[0]));
    const byDefault = await rows(`/v1/dataset/${d.id}/latest/rows?offset=50`);
    expect(numbers(byDefault)).toEqual(Array.from({ length: 100 }, (_, i) => 50 + i));
    expect(numbers(await rows(`/v1/dataset/${d.id}/latest/rows?limit=1&offset=1199`))).toEqual([1199]);
    const most = await rows(`/v1/dataset/${d.id}/latest/rows?limit=1000&offset=100`);
    expect(numbers(most)).toEqual(Array.from({ length: 1000 }, (_, i) => 100 + i));
    expect(most.total).toBe(1200);
  });

  it("bad offset, limit or parameters → 400 invalid_query; bad ids → 400 invalid_request; unknown version → 404", async () => {
    const base = `/v1/dataset/${multi.id}/${multiLatest}/rows`;
    for (const query of ["offset=-1", "offset=abc", "offset=1.5", "offset=", "offset=1e3", "offset=99999999999999999", "limit=0", "limit=1001", "limit=-5", "limit=x", "limit=", "page=2", "cursor=abc"]) {
      await expectProblem(await send("GET", `${base}?${query}`), 400, "invalid_query");
    }
    await expectProblem(await send("GET", `/v1/dataset/${multi.id}/not-a-version/rows`), 400, "invalid_request");
    await expectProblem(await send("GET", `/v1/dataset/NOT-A-UUID/latest/rows`), 400, "invalid_request");
    await expectProblem(await send("GET", `/v1/dataset/${multi.id}/${crypto.randomUUID()}/rows`), 404, "not_found");
    await expectProblem(await send("GET", `/v1/dataset/${crypto.randomUUID()}/latest/rows`), 404, "not_found");
    const post = await send("POST", base, { key: owner, body: new Uint8Array(0) });
    await expectProblem(post, 405, "method_not_allowed");
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("very large rows end the page early, with at least one row", { timeout: 30_000 }, async () => {
    const cell = "x".repeat(1_000_000);
    const body = Array.from({ length: 12 }, (_, i) => `${i},${cell}\n`).join("");
    const d = await createDataset(owner, `n,big\n${body}`, { name: "wide", visibility: "public" });
    const page = await rows(`/v1/dataset/${d.id}/latest/rows?limit=12`);
    expect(page.total).toBe(12);
    expect(page.rows.length).toBe(9);
    expect(page.rows.map((r) => r[0])).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8"]);
    expect((await rows(`/v1/dataset/${d.id}/latest/rows?offset=11`)).rows.map((r) => r[0])).toEqual(["11"]);
  });
});

describe("reads only the segments it needs", () => {
  it("serves rows of one segment with every other segment's object gone, and stops before the next", async () => {
    const d = await createDataset(owner, "n\n0\n1\n2\n", { name: "sparse", visibility: "public" });
    // No compaction after these appends: it would merge the four segments this test inspects.
    await appended(await appendWith(NO_AUTO_COMPACTION, owner, d.id, "3\n4\n5\n"));
    await appended(await appendWith(NO_AUTO_COMPACTION, owner, d.id, "6\n7\n8\n"));
    const last = await appended(await appendWith(NO_AUTO_COMPACTION, owner, d.id, "9\n10\n11\n"));
    const segments = await getVersionSegments(env.DB, last);
    expect(segments.map((s) => s.rowCount)).toEqual([3, 3, 3, 3]);
    const [s0, s1, s2, s3] = segments.map((s) => s.key);
    await env.CONTENT.delete([s0!, s1!, s3!]);
    expect((await rows(`/v1/dataset/${d.id}/${last}/rows?offset=6&limit=3`)).rows).toEqual([["6"], ["7"], ["8"]]);
    expect((await rows(`/v1/dataset/${d.id}/${last}/rows?offset=8&limit=1`)).rows).toEqual([["8"]]);
    expect((await rows(`/v1/dataset/${d.id}/${last}/rows?offset=12`)).rows).toEqual([]);
    // Windows that need a deleted segment fail, so the reads above came from the third alone…
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/${last}/rows?offset=0`), 500, "internal_error");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/${last}/rows?offset=7&limit=3`), 500, "internal_error");
    // …and once it is gone too, a window inside it (one not read before, so not cached) fails.
    await env.CONTENT.delete(s2!);
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/${last}/rows?offset=6&limit=2`), 500, "internal_error");
  });
});

describe("visibility", () => {
  it("a private dataset's rows: the owning team reads them, anonymous and other teams get 404", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "private rows", visibility: "private" });
    for (const ref of [d.version, "latest"]) {
      const path = `/v1/dataset/${d.id}/${ref}/rows`;
      expect((await rows(path, teammate)).rows).toEqual([["1"]]);
      await expectProblem(await send("GET", path), 404, "not_found");
      await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
    }
  });

  it("making a dataset private hides the rows of every version", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "soon private rows", visibility: "public" });
    const path = `/v1/dataset/${d.id}/${d.version}/rows`;
    expect((await rows(path, outsider)).rows).toEqual([["1"]]);
    await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })]);
    await expectProblem(await send("GET", path), 404, "not_found");
    await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
    expect((await rows(path, owner)).rows).toEqual([["1"]]);
  });
});
