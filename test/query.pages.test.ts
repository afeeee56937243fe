// Page-level pruning on the Parquet twin (docs/queries.md#cost): a `where` that matches a few
// rows of a large row group reads only the pages that may hold them, then only the pages of the
// other columns that hold the matches; the answer is the CSV path's. R2 reads are counted with
// the real local R2 behind a recording wrapper (test/helpers/r2-counting.ts).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { buildTwin } from "../src/columnar/build.ts";
import { decodePartMetadata, PAGE_ROWS } from "../src/columnar/parquet/index.ts";
import { limitsFrom, storageTimingsFrom } from "../src/config.ts";
import { signRequest } from "../src/wire/sign.ts";
import { countingR2 } from "./helpers/r2-counting.ts";
import { PARALLEL_READS, READ_COST_BYTES } from "../src/query/read-runs.ts";
import { ORIGIN, collectionPart, csvPart } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { recordingAfterCommit, signedFetch, twinPartRows } from "./helpers/storage.ts";

const PAGES = 33;
const MIDDLE = 16;
const ROWS = (PAGES - 1) * PAGE_ROWS + 100;
const CITIES = ["Oslo", "Lima", "Zürich", "Accra", "Hanoi"];

let owner: TestKey;
let id: string;
let version: string;

/** `note` is text of 60 seeded letters, so sixteen of its pages (about 20 kB each) are a wider gap than a read costs (read-runs.ts). */
function csv(): string {
  let seed = 7;
  const letter = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return String.fromCharCode(97 + (seed % 26));
  };
  let text = "id,city,amount,note\n";
  for (let n = 0; n < ROWS; n++) {
    let note = "";
    for (let k = 0; k < 60; k++) note += letter();
    text += `${n},${CITIES[n % CITIES.length]},${(n * 37) % 1000},${n % 11 === 0 ? "" : note}\n`;
  }
  return text;
}

async function ask(query: string, on?: { id: string; version: string }) {
  const url = `${ORIGIN}/v1/dataset/${on?.id ?? id}/${on?.version ?? version}/rows?${query}`;
  const headers = await signRequest({ method: "GET", url }, owner);
  headers.set("Cache-Control", "no-cache");
  const r2 = countingR2(env.CONTENT);
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { headers }), { ...env, CONTENT: r2.bucket } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  if (response.status !== 200) throw new Error(`${query}: ${response.status} ${text}`);
  return { body: JSON.parse(text) as { rows: unknown[][]; matched: number }, reads: r2.reads };
}

/** The twin's single part: its key, where its row groups end, and its metadata. */
async function twinPart(of = version) {
  const row = (await twinPartRows(of))[0];
  const object = await env.CONTENT.get(row!.key, { range: { offset: row!.data_bytes, length: row!.meta_bytes } });
  return { key: row!.key, dataBytes: row!.data_bytes, meta: decodePartMetadata(await object!.text()) };
}

beforeAll(async () => {
  owner = await createKey("pages-team", "pages-owner");
  const quiet = recordingAfterCommit().env;
  const created = await signedFetch(quiet, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name: "paged", visibility: "public" }), csvPart(csv(), "paged.csv")] });
  expect(created.status).toBe(201);
  ({ id, version } = (await created.json()) as { id: string; version: string });
});

describe("page pruning", () => {
  it("reads only the pages that may hold a match, and answers as the CSV does", async () => {
    const queries = [`where=id >= ${MIDDLE * PAGE_ROWS + 10} AND id < ${MIDDLE * PAGE_ROWS + 20}`, `where=id = 5 OR id = ${ROWS - 1}&columns=id,note`, "where=id > 99999999", `where=amount = 37 AND id < ${PAGE_ROWS}&order=-id&limit=3&columns=id,amount`];
    const fromCsv: { rows: unknown[][]; matched: number }[] = [];
    for (const query of queries) fromCsv.push((await ask(query)).body);
    expect(fromCsv[0]!.rows.map((row) => row[0])).toEqual(Array.from({ length: 10 }, (_, i) => MIDDLE * PAGE_ROWS + 10 + i));

    expect(await buildTwin(env, id, version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const part = await twinPart();
    expect(part.meta.rowGroups.length).toBe(1);
    const chunks = part.meta.rowGroups[0]!.columns;
    expect(chunks.map((chunk) => chunk.pageFirstRows.length)).toEqual([PAGES, PAGES, PAGES, PAGES]);
    const answers = [];
    for (const query of queries) answers.push(await ask(query));
    answers.forEach((answer, i) => expect(answer.body, queries[i]).toEqual(fromCsv[i]));

    /** What a query read of the part's row groups, as byte ranges. */
    const ranges = (reads: { key: string; offset: number | null; length: number | null }[]) =>
      reads.filter((read) => read.key === part.key && read.offset !== null && read.offset < part.dataBytes).map((read) => [read.offset!, read.offset! + read.length!] as const);
    const pageOf = (column: number, page: number) => {
      const chunk = chunks[column]!;
      const from = chunk.offset + chunk.pageOffsets[page]!;
      return [from, from + chunk.pageSizes[page]!] as const;
    };
    const covered = (read: readonly (readonly [number, number])[], [from, to]: readonly [number, number]) => read.some(([a, b]) => a <= from && to <= b);
    const readBytes = (read: readonly (readonly [number, number])[]) => read.reduce((sum, [a, b]) => sum + b - a, 0);
    const dataBytes = chunks.reduce((sum, chunk) => sum + chunk.compressed, 0);

    // `id` in one page: that page of `id` and of `note` is read, no other of `note` and none
    // before it of `id` (the few kB of `id`'s pages after it lie between it and the next column's
    // pages, which one read bridges); a fraction of the row group in all.
    const narrow = ranges(answers[0]!.reads);
    for (let page = 0; page < PAGES; page++) {
      if (page <= MIDDLE) expect(covered(narrow, pageOf(0, page)), `id page ${page}`).toBe(page === MIDDLE);
      expect(covered(narrow, pageOf(3, page)), `note page ${page}`).toBe(page === MIDDLE);
    }
    expect(readBytes(narrow)).toBeLessThan(dataBytes / 3);
    // Two matches, in the first and the last page: those pages of `note`, none between.
    const ends = ranges(answers[1]!.reads);
    for (let page = 0; page < PAGES; page++) expect(covered(ends, pageOf(3, page)), `note page ${page}`).toBe(page === 0 || page === PAGES - 1);
    expect(readBytes(ends)).toBeLessThan(dataBytes / 2);
    // The part's metadata is read by the first query on the twin only: the isolate keeps it under the part's key.
    const metadataReads = answers.map((answer) => answer.reads.filter((read) => read.key === part.key && (read.offset ?? 0) >= part.dataBytes).length);
    expect(metadataReads).toEqual([1, 0, 0, 0]);
    // Ruled out by the row group's statistics: nothing of the row group is read.
    expect(ranges(answers[2]!.reads)).toEqual([]);
    // `amount` has no narrow pages, `id` does: only the first page of `id` is asked for to filter,
    // with `amount`'s; the pages of `id` between them are a smaller gap than another read costs,
    // so it is one read. No `note`.
    const first = ranges(answers[3]!.reads);
    expect(first.length).toBe(1);
    expect(covered(first, pageOf(0, 0))).toBe(true);
    expect(covered(first, pageOf(2, 0))).toBe(true);
    for (let page = 0; page < PAGES; page++) expect(covered(first, pageOf(3, page)), `note page ${page}`).toBe(false);
  });
});

/** `id`, then eight columns of 12 seeded letters: a page of each is nine spans of the row group, apart. */
function wideCsv(): string {
  let seed = 11;
  const word = () => {
    let text = "";
    for (let k = 0; k < 12; k++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      text += String.fromCharCode(97 + (seed % 26));
    }
    return text;
  };
  const names = Array.from({ length: 8 }, (_, c) => `t${c}`);
  let text = `id,${names.join(",")}\n`;
  for (let n = 0; n < ROWS; n++) text += `${n},${names.map(word).join(",")}\n`;
  return text;
}

describe("range reads", () => {
  it("a selective query on nine columns waits for at most six reads of the row group, as many as a Worker has connections, each join bridging less than a read costs", async () => {
    const created = await signedFetch(recordingAfterCommit().env, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name: "wide", visibility: "public" }), csvPart(wideCsv(), "wide.csv")] });
    expect(created.status).toBe(201);
    const wide = (await created.json()) as { id: string; version: string };
    const query = `where=id >= ${2 * PAGE_ROWS + 10} AND id < ${2 * PAGE_ROWS + 20}`;
    const fromCsv = (await ask(query, wide)).body;
    expect(fromCsv.rows.map((row) => row[0])).toEqual(Array.from({ length: 10 }, (_, i) => 2 * PAGE_ROWS + 10 + i));
    expect(await buildTwin(env, wide.id, wide.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const part = await twinPart(wide.version);
    const chunks = part.meta.rowGroups[0]!.columns;
    const answer = await ask(query, wide);
    expect(answer.body).toEqual(fromCsv);
    const reads = answer.reads.filter((read) => read.key === part.key && read.offset !== null && read.offset < part.dataBytes).map((read) => [read.offset!, read.offset! + read.length!] as const);
    // Without joining, the `id` page and each text column's page would be a read of its own: nine.
    expect(reads.length).toBeLessThanOrEqual(PARALLEL_READS);
    for (const [c, chunk] of chunks.entries()) {
      const from = chunk.offset + chunk.pageOffsets[2]!;
      expect(reads.some(([a, b]) => a <= from && from + chunk.pageSizes[2]! <= b), `column ${c} page 2`).toBe(true);
    }
    // Each join saved a read for fewer bytes than a read costs: the bytes beyond the nine pages
    // wanted are at most a read's cost for each read saved.
    const wanted = chunks.reduce((sum, chunk) => sum + chunk.pageSizes[2]!, 0);
    const read = reads.reduce((sum, [a, b]) => sum + b - a, 0);
    expect(read - wanted).toBeLessThanOrEqual((chunks.length - reads.length) * READ_COST_BYTES);
    expect(read).toBeLessThan(chunks.reduce((sum, chunk) => sum + chunk.compressed, 0));
  });
});
