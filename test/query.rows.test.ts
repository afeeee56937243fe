// GET /rows with where/columns/order/offset/limit and GET /rows.csv (docs/queries.md, docs/api.md
// "Querying rows"): the same answers from the CSV segments (twin pending) and from the Parquet
// twin, row groups pruned by their statistics, errors with positions, the scan budget, and who
// may ask (private datasets, drafts).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { buildTwin } from "../src/columnar/build.ts";
import { limitsFrom, storageTimingsFrom } from "../src/config.ts";
import { signRequest } from "../src/wire/sign.ts";
import { etagOf } from "../src/edge/etag.ts";
import { utf8 } from "../src/wire/bytes.ts";
import { countingR2 } from "./helpers/r2-counting.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";
import { ORIGIN, collectionPart, csvPart, expectProblem } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendWith, recordingAfterCommit, signedFetch, twinPartRows } from "./helpers/storage.ts";

interface Answer {
  columns: string[];
  schema: { fields: { name: string; type: string }[] };
  rows: unknown[][];
  offset: number;
  total: number;
  matched: number;
  partial: boolean;
}

let owner: TestKey;
let outsider: TestKey;
let quiet: Env;
let id: string;
let version: string;

const NAMES = ["Zürich", "ab, c", 'say "hi"', "日本", "", "a😀", "Ab"];

function rowsOf(from: number, to: number): string {
  let csv = "";
  for (let n = from; n < to; n++) {
    const amount = n % 13 === 0 ? "NaN" : n % 7 === 0 ? "" : String((n * 37) % 101 / 4);
    const day = n % 3 === 0 ? "1969-07-20" : `2024-01-${String(1 + (n % 28)).padStart(2, "0")}`;
    const name = NAMES[n % NAMES.length]!;
    // Every datetime has a zone, so the twin keeps them as instants (not as written).
    const at = `2024-03-0${1 + (n % 9)}${n % 3 === 0 ? " " : "T"}1${n % 10}:00:00${n % 2 === 0 ? "Z" : "+02:00"}`;
    csv += `${n},${/[",]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name},${amount},${day},${n % 2 === 0},${at}\n`;
  }
  return csv;
}

async function ask(path: string, options: { key?: TestKey; vars?: Record<string, unknown>; fresh?: boolean; headers?: Record<string, string> } = {}) {
  const url = ORIGIN + path;
  const headers = options.key ? await signRequest({ method: "GET", url }, options.key) : new Headers();
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  // The edge stand-in keeps only anonymous answers; no-cache makes the worker compute its answer again.
  if (options.fresh) headers.set("Cache-Control", "no-cache");
  const r2 = countingR2(env.CONTENT);
  const d1 = countingD1(env.DB);
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { headers }), { ...env, CONTENT: r2.bucket, DB: d1.db, ...options.vars } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { response, text, reads: r2.reads, bytes: r2.bytes(), queries: d1.queries.length, sql: d1.queries.map((query) => query.sql) };
}

async function json(path: string, options: Parameters<typeof ask>[1] = {}): Promise<Answer & { reads: { key: string; offset: number | null }[] }> {
  const { response, text, reads } = await ask(path, options);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  return { ...(JSON.parse(text) as Answer), reads };
}

/** Reads of the twin's row groups (not of the part metadata beside them, which an isolate keeps once read). */
async function rowGroupReads(reads: { key: string; offset: number | null }[]): Promise<number> {
  const results = await twinPartRows(version);
  const dataBytes = new Map(results.map((r) => [r.key, r.data_bytes]));
  return reads.filter((read) => dataBytes.has(read.key) && (read.offset ?? 0) < dataBytes.get(read.key)!).length;
}

const QUERIES = [
  "where=id >= 250 AND id < 260",
  "where=amount > 10&order=-amount,id&limit=7&offset=3",
  "where=name = 'Zürich' OR name IS NULL&columns=name,id&limit=1000",
  "where=NOT (amount > 5)&order=day,-id&limit=20",
  "where=name LIKE 'a%25'&columns=name,day,flag&order=name",
  "where=day < '1970-01-01' AND flag = true&limit=5&offset=40",
  "order=-name,id&limit=11&offset=5",
  "where=amount = 'NaN'&columns=amount,id",
  "where=id IN (1, 2, 299, 1000)",
  "columns=flag,id&offset=295",
  "where=at >= '2024-03-05T12:00:00Z'&order=at,-id&limit=9&columns=id,at",
  "where=amount < 3&order=-id&columns=at,id,day&limit=4",
];

beforeAll(async () => {
  owner = await createKey("query-team", "query-owner");
  outsider = await createKey("query-other", "query-outsider");
  // The twin is built only when a test asks for it: the consumer never sees these commits.
  quiet = recordingAfterCommit().env;
  const created = await signedFetch(quiet, "POST", "/v1/dataset", owner, {
    parts: [collectionPart({ name: "queried", visibility: "public" }), csvPart(`id,name,amount,day,flag,at\n${rowsOf(0, 100)}`, "cities.csv")],
  });
  expect(created.status).toBe(201);
  id = ((await created.json()) as { id: string }).id;
  for (const [from, to] of [[100, 200], [200, 300]] as const) {
    const appended = await appendWith(quiet, owner, id, rowsOf(from, to));
    expect(appended.status).toBe(201);
    version = ((await appended.json()) as { version: string }).version;
  }
});

describe("querying rows", () => {
  it("answers the same from the CSV segments and from the Parquet twin", async () => {
    const before: Answer[] = [];
    for (const query of QUERIES) {
      const answer = await json(`/v1/dataset/${id}/${version}/rows?${query}`, { key: owner, fresh: true });
      expect(answer.reads.length, query).toBeGreaterThan(0);
      expect(answer.reads.every((read) => !read.key.includes("/parquet/")), query).toBe(true);
      expect(answer.partial).toBe(false);
      before.push(answer);
    }
    expect(before[0]!.rows.map((row) => row[0])).toEqual([250, 251, 252, 253, 254, 255, 256, 257, 258, 259]);
    expect(before[0]!.matched).toBe(10);
    expect(before[2]!.columns).toEqual(["name", "id"]);
    expect(before[2]!.schema.fields.map((field) => field.name)).toEqual(["name", "id"]);
    expect(before[2]!.rows.every(([name]) => name === "Zürich" || name === null)).toBe(true);
    expect(before[7]!.rows.every(([amount]) => amount === "NaN")).toBe(true);
    expect(before[8]!.rows.map((row) => row[0])).toEqual([1, 2, 299]);
    // Datetimes answer as written, offsets and separators kept, on either path.
    expect(before[10]!.rows.some((row) => String(row[1]).endsWith("+02:00"))).toBe(true);
    expect(before[11]!.rows.some((row) => String(row[0]).endsWith("+02:00") || String(row[0]).includes(" "))).toBe(true);
    expect(before[9]!.rows).toEqual([[true, 295], [false, 296], [true, 297], [false, 298], [true, 299]].map(([f, n]) => [n === 295 || n === 297 || n === 299 ? false : true, n]));

    expect(await buildTwin(env, id, version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    for (const [i, query] of QUERIES.entries()) {
      const answer = await json(`/v1/dataset/${id}/${version}/rows?${query}`, { key: owner, fresh: true });
      const { reads, ...body } = answer;
      expect(reads.length, query).toBeGreaterThan(0);
      const { reads: _, ...expected } = before[i] as Answer & { reads?: unknown };
      expect(body, query).toEqual(expected);
      const parquetReads = reads.filter((read) => read.key.includes("/parquet/")).length;
      const groupReads = await rowGroupReads(reads);
      if (query.includes("at >=")) expect(groupReads, `${query}: a datetime compared is read from the CSV`).toBe(0);
      else if (query.startsWith("where=") || query.includes("order=")) {
        // The twin answers; datetimes answered come from the CSV parts holding the window's rows.
        expect(groupReads, query).toBeGreaterThan(0);
        const answersAt = !query.includes("columns=") || query.includes(",at") || query.includes("=at");
        if (!answersAt) expect(parquetReads, query).toBe(reads.length);
      }
    }
  });

  it("a query the twin answers reads the version without its segments; one that reads the CSV after all reads them in one more round trip", async () => {
    await buildTwin(env, id, version, storageTimingsFrom(limitsFrom(env)));
    const segmentReads = async (query: string) => {
      const answer = await ask(`/v1/dataset/${id}/${version}/rows?${query}`, { key: owner, fresh: true });
      expect(answer.response.status, query).toBe(200);
      return answer.sql.filter((sql) => sql.includes("version_segments")).length;
    };
    // The twin alone: the batch that says who may read the version has no segment list in it.
    expect(await segmentReads("where=id >= 250 AND id < 260&columns=id,name")).toBe(0);
    expect(await segmentReads("where=amount > 10&order=-amount,id&limit=7&columns=id,amount,day")).toBe(0);
    // Datetimes answered are filled from the CSV parts, a datetime compared reads the CSV, and a
    // plain window reads the segments that hold it: each reads the segment list once.
    expect(await segmentReads("where=id >= 250 AND id < 260&columns=id,at")).toBe(1);
    expect(await segmentReads("where=at >= '2024-03-05T12:00:00Z'&columns=id,at")).toBe(1);
    expect(await segmentReads("offset=250&limit=5")).toBe(1);
  });

  it("skips row groups whose statistics rule them out and reads only the needed columns", async () => {
    await buildTwin(env, id, version, storageTimingsFrom(limitsFrom(env)));
    const narrow = await ask(`/v1/dataset/${id}/${version}/rows?where=id >= 250 AND id < 260&columns=id`, { key: owner, fresh: true });
    expect(narrow.response.status).toBe(200);
    const none = await ask(`/v1/dataset/${id}/${version}/rows?where=name = 'x'`, { key: owner, fresh: true });
    const every = await ask(`/v1/dataset/${id}/${version}/rows?where=id >= 0&limit=1000&columns=id,name,amount,day,flag`, { key: owner, fresh: true });
    // Three parts of one row group each: the narrow query reads one chunk of one of them.
    expect(await rowGroupReads(narrow.reads)).toBe(1);
    // No row group matches: only the `where` column of each is read, never the others.
    expect(await rowGroupReads(none.reads)).toBe(3);
    expect(none.bytes).toBeLessThan(every.bytes / 2);
    expect(narrow.bytes).toBeLessThan(every.bytes / 2);
  });

  it("streams every matching row as CSV, header first, on both paths", async () => {
    const path = `/v1/dataset/${id}/${version}/rows.csv?where=${encodeURIComponent("name IN ('ab, c', 'say \"hi\"', '') OR amount IS NULL")}&columns=id,name,amount&order=-id`;
    const { response, text } = await ask(path, { fresh: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe('attachment; filename="cities-rows.csv"');
    const lines = text.split("\r\n");
    expect(lines[0]).toBe("id,name,amount");
    expect(lines.at(-1)).toBe("");
    expect(lines[1]).toMatch(/^29[0-9],/);
    expect(text).toContain('"ab, c"');
    expect(text).toContain('"say ""hi"""');
    const ids = lines.slice(1, -1).map((line) => Number(line.split(",")[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const json = await ask(`/v1/dataset/${id}/${version}/rows?where=${encodeURIComponent("name IN ('ab, c', 'say \"hi\"', '') OR amount IS NULL")}&limit=1000`, { fresh: true });
    expect(ids.length).toBe((JSON.parse(json.text) as Answer).matched);
  });

  it("answers partial past the scan budget, and the export 413 before its first byte", async () => {
    const vars = { QUERY_SCAN_BUDGET_BYTES: "2000" };
    const partial = await json(`/v1/dataset/${id}/${version}/rows?where=id >= 0`, { vars });
    expect(partial.partial).toBe(true);
    expect(partial.matched).toBeLessThan(300);
    const problem = await ask(`/v1/dataset/${id}/${version}/rows.csv?where=id >= 0`, { vars });
    const body = await expectProblem(new Response(problem.text, problem.response), 413, "query_too_large");
    expect(body.budget).toBe(2000);
    // A selective query on the twin plans within the same budget.
    await buildTwin(env, id, version, storageTimingsFrom(limitsFrom(env)));
    const narrow = await ask(`/v1/dataset/${id}/${version}/rows.csv?where=id >= 250 AND id < 252&columns=id`, { vars, fresh: true });
    expect(narrow.text).toBe("id\r\n250\r\n251\r\n");
  });

  it("refuses what it cannot read with the position and what was expected", async () => {
    const cases: [string, string, number, string][] = [
      ["rows?where=amount =", "where", 9, "a literal"],
      ["rows?where=amount = 'x'", "where", 10, "a number"],
      ["rows?where=nmae = 'x'", "where", 1, "a column of this version"],
      ["rows?where=(id = 1", "where", 8, "AND, OR"],
      ["rows?columns=id,id", "columns", 4, "each column at most once"],
      ["rows.csv?order=-amont", "order", 2, "a column of this version"],
      ["rows.csv?where=day >= 'nope'", "where", 8, "a date"],
    ];
    for (const [path, parameter, position, expected] of cases) {
      const { response, text } = await ask(`/v1/dataset/${id}/${version}/${path}`);
      const problem = await expectProblem(new Response(text, response), 400, "invalid_query");
      expect(problem.parameter, path).toBe(parameter);
      expect(problem.position, path).toBe(position);
      expect(String(problem.expected), path).toContain(expected);
      expect(String(problem.detail), path).toContain(`at character ${position}`);
    }
    // The export takes every match: offset and limit are unknown parameters there.
    const paged = await ask(`/v1/dataset/${id}/${version}/rows.csv?limit=3`);
    await expectProblem(new Response(paged.text, paged.response), 400, "invalid_query");
  });
});

describe("caching answers", () => {
  // The production setting: Workers Cache (absent here) answers a repeated URL before the Worker
  // runs; the Worker itself keeps answers by version and normalised query.
  const production = { EDGE_CACHE: "workers-cache" };

  it("an explicit version's answer is immutable, and every spelling of it is answered without R2", async () => {
    const spellings = ["where=id >= 270 AND id < 280&order=-id", "where=(id>=270)  and id<280.0&order=-id", "order=-id&where=id >= '270' AND NOT NOT id < 280"];
    const first = await ask(`/v1/dataset/${id}/${version}/rows?${spellings[0]}&limit=5`, { vars: production });
    expect(first.response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(first.reads.length).toBeGreaterThan(0);
    for (const spelling of spellings) {
      for (const ref of [version, "latest"]) {
        const again = await ask(`/v1/dataset/${id}/${ref}/rows?${spelling}&limit=5`, { vars: production });
        expect(again.text, spelling).toBe(first.text);
        expect(again.reads, spelling).toEqual([]);
        // The one batch that says who may read which version; then the answer is the kept one.
        expect(again.queries, spelling).toBe(1);
      }
    }
    // Another window of the same question is another answer.
    expect((await ask(`/v1/dataset/${id}/${version}/rows?${spellings[1]}&limit=5&offset=1`, { vars: production })).reads.length).toBeGreaterThan(0);
  });

  it("an answer's ETag is the SHA-256 of the bytes sent, computed or kept, and a matching If-None-Match answers 304", async () => {
    const path = `/v1/dataset/${id}/${version}/rows?where=id >= 200 AND id < 204`;
    const computed = await ask(path, { key: owner, fresh: true });
    expect(computed.reads.length).toBeGreaterThan(0);
    const etag = computed.response.headers.get("ETag");
    expect(etag).toBe(await etagOf(utf8(computed.text)));
    const kept = await ask(path, { key: owner });
    expect(kept.reads).toEqual([]);
    expect(kept.text).toBe(computed.text);
    expect(kept.response.headers.get("ETag")).toBe(etag);
    for (const fresh of [true, false]) {
      const unchanged = await ask(path, { key: owner, fresh, headers: { "If-None-Match": etag! } });
      expect(unchanged.response.status).toBe(304);
      expect(unchanged.text).toBe("");
    }
  });

  it("the export too; and the local stand-in of the edge cache answers a repeated URL without R2", async () => {
    const path = `/v1/dataset/${id}/${version}/rows.csv?where=flag = true AND id < 20&columns=id`;
    const first = await ask(path, { vars: production });
    expect(first.response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const etag = first.response.headers.get("ETag");
    const respelled = await ask(`/v1/dataset/${id}/latest/rows.csv?where=${encodeURIComponent("flag = 'TRUE' and id < 20")}&columns=${encodeURIComponent(" id ")}`, { vars: production });
    expect(respelled.text).toBe(first.text);
    expect(respelled.reads).toEqual([]);
    expect(respelled.response.headers.get("ETag")).toBe(etag);
    expect(respelled.response.headers.get("Cache-Control")).toBe("public, max-age=60, stale-while-revalidate=300");
    // In-worker (tests, npm start): the URL's own entry; its only D1 read is the stand-in's visibility check.
    await ask(`/v1/dataset/${id}/${version}/rows?where=id = 3`);
    const repeated = await ask(`/v1/dataset/${id}/${version}/rows?where=id = 3`);
    expect(repeated.reads).toEqual([]);
    expect(repeated.queries).toBe(1);
  });
});

describe("who may query", () => {
  it("a private dataset and a draft version answer 404 to others on both routes, and to the team as usual", async () => {
    const created = await signedFetch(quiet, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name: "secret", visibility: "private" }), csvPart("a,b\n1,SECRET\n2,x\n")] });
    const secret = (await created.json()) as { id: string; version: string };
    for (const path of [`rows?where=b = 'SECRET'`, "rows.csv?where=a > 0"]) {
      for (const ref of [secret.version, "latest"]) {
        const full = `/v1/dataset/${secret.id}/${ref}/${path}`;
        expect((await ask(full)).response.status, full).toBe(404);
        expect((await ask(full, { key: outsider })).response.status, full).toBe(404);
        const mine = await ask(full, { key: owner });
        expect(mine.response.status, full).toBe(200);
        expect(mine.response.headers.get("Cache-Control")).toBe("private, no-store");
      }
    }
    // Published: the version written while private stays a draft for outsiders.
    const published = await signedFetch(quiet, "PUT", `/v1/dataset/${secret.id}`, owner, { parts: [collectionPart({ name: "secret", visibility: "public" }), csvPart("a,b\n3,open\n")] });
    expect(published.status).toBe(200);
    const draft = `/v1/dataset/${secret.id}/${secret.version}/rows.csv?where=b = 'SECRET'`;
    expect((await ask(draft)).response.status).toBe(404);
    expect((await ask(draft, { key: outsider })).response.status).toBe(404);
    expect((await ask(draft, { key: owner })).text).toBe("a,b\r\n1,SECRET\r\n");
    expect((await ask(`/v1/dataset/${secret.id}/latest/rows.csv?where=a > 0`)).text).toBe("a,b\r\n3,open\r\n");
  });
});
