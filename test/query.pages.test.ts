// Page-level pruning on the Parquet twin (docs/queries.md#cost): a `where` that matches a few
// rows of a large row group reads only the pages that may hold them, then only the pages of the
// other columns that hold the matches; the answer is the CSV path's. R2 reads are counted with
// the real local R2 behind a recording wrapper (test/helpers/r2-counting.ts).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parquetReadObjects } from "hyparquet";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { buildTwin } from "../src/columnar/build.ts";
import { PAGE_ROWS } from "../src/columnar/parquet/index.ts";
import { readPartMetadata } from "../src/columnar/part-metadata-read.ts";
import { limitsFrom, storageTimingsFrom } from "../src/config.ts";
import { signRequest } from "../src/wire/sign.ts";
import { countingR2 } from "./helpers/r2-counting.ts";
import { legacyPartMetadata } from "./helpers/legacy-part-metadata.ts";
import { MAX_JOIN_GAP, PARALLEL_READS, READ_COST_BYTES } from "../src/query/read-runs.ts";
import { ORIGIN, collectionPart, csvPart } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendWith, recordingAfterCommit, signedFetch, twinPartRows } from "./helpers/storage.ts";

const PAGES = 33;
const MIDDLE = 16;
const ROWS = (PAGES - 1) * PAGE_ROWS + 100;
const CITIES = ["Oslo", "Lima", "Zürich", "Accra", "Hanoi"];

let owner: TestKey;
let id: string;
let version: string;

/** Rows `from` to `to` of an `id,city,amount` table, `id` rising. */
/** Letters a–z from a linear congruential generator started at `seed`: the same text every run. */
function seededLetters(seed: number): (count: number) => string {
  return (count) => {
    let text = "";
    for (let k = 0; k < count; k++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      text += String.fromCharCode(97 + (seed % 26));
    }
    return text;
  };
}

/** Creates a dataset from `csv` with its work after the commit recorded, not run: its twin is built when a test says. */
async function createUnbuilt(name: string, visibility: "public" | "private", csv: string, fileName: string): Promise<{ id: string; version: string }> {
  const created = await signedFetch(recordingAfterCommit().env, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name, visibility }), csvPart(csv, fileName)] });
  expect(created.status).toBe(201);
  return (await created.json()) as { id: string; version: string };
}

function rows(from: number, to: number): string {
  return Array.from({ length: to - from }, (_, i) => `${from + i},${CITIES[(from + i) % CITIES.length]},${(from + i) % 97}`).join("\n") + "\n";
}

/** `note` is text of 60 seeded letters, so sixteen of its pages (about 20 kB each) are a wider gap than a read costs (read-runs.ts). */
function csv(): string {
  const letters = seededLetters(7);
  let text = "id,city,amount,note\n";
  for (let n = 0; n < ROWS; n++) {
    const note = letters(60);
    text += `${n},${CITIES[n % CITIES.length]},${(n * 37) % 1000},${n % 11 === 0 ? "" : note}\n`;
  }
  return text;
}

/** A `no-cache` GET of `url` with `headers`, its R2 reads counted. */
async function fetchCounted(url: string, headers: Headers) {
  headers.set("Cache-Control", "no-cache");
  const r2 = countingR2(env.CONTENT);
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { headers }), { ...env, CONTENT: r2.bucket } as Env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, text, reads: r2.reads };
}

async function ask(query: string, on?: { id: string; version: string }) {
  const url = `${ORIGIN}/v1/dataset/${on?.id ?? id}/${on?.version ?? version}/rows?${query}`;
  const { status, text, reads } = await fetchCounted(url, await signRequest({ method: "GET", url }, owner));
  if (status !== 200) throw new Error(`${query}: ${status} ${text}`);
  return { body: JSON.parse(text) as { rows: unknown[][]; matched: number }, reads };
}

async function readRange(key: string, offset: number, length: number): Promise<Uint8Array> {
  const object = await env.CONTENT.get(key, { range: { offset, length } });
  return new Uint8Array(await object!.arrayBuffer());
}

/** The twin's parts (the first by default): key, where its row groups end, where its metadata sections start, and its whole metadata. */
async function twinParts(of = version) {
  return Promise.all(
    (await twinPartRows(of)).map(async (row) => {
      const sections = { dataBytes: row.data_bytes, metaBytes: row.meta_bytes, summaryBytes: row.summary_bytes };
      return { key: row.key, ...sections, pagesStart: row.data_bytes + row.meta_bytes + row.summary_bytes, meta: await readPartMetadata((offset, length) => readRange(row.key, offset, length), sections) };
    }),
  );
}

async function twinPart(of = version) {
  return (await twinParts(of))[0]!;
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
    // The part's head and its row group's pages are read by the first query on the twin only:
    // the isolate keeps them under the part's key (and the row group's number).
    const metadataReads = answers.map((answer) => answer.reads.filter((read) => read.key === part.key && (read.offset ?? 0) >= part.dataBytes).length);
    expect(metadataReads).toEqual([2, 0, 0, 0]);
    // Ruled out by the row group's statistics: nothing of the row group is read.
    expect(ranges(answers[2]!.reads)).toEqual([]);
    // `amount` has no narrow pages, `id` does: only the first page of `id` is asked for to filter,
    // with `amount`'s; the rest of `id` and `city` lie between them, one read when that gap costs
    // less than another read, else two. No `note`.
    const first = ranges(answers[3]!.reads);
    expect(first.length).toBe(chunks[2]!.offset - pageOf(0, 0)[1] <= READ_COST_BYTES ? 1 : 2);
    expect(covered(first, pageOf(0, 0))).toBe(true);
    expect(covered(first, pageOf(2, 0))).toBe(true);
    for (let page = 0; page < PAGES; page++) expect(covered(first, pageOf(3, page)), `note page ${page}`).toBe(false);
  });
});

/** `id`, then eight columns of 12 seeded letters: a page of each is nine spans of the row group, apart. */
function wideCsv(): string {
  const letters = seededLetters(11);
  const word = () => letters(12);
  const names = Array.from({ length: 8 }, (_, c) => `t${c}`);
  let text = `id,${names.join(",")}\n`;
  for (let n = 0; n < ROWS; n++) text += `${n},${names.map(word).join(",")}\n`;
  return text;
}

describe("range reads", () => {
  it("a selective query on nine columns waits for at most six reads of the row group, as many as a Worker has connections, the joins past that cap bridging the narrowest gaps", async () => {
    const wide = await createUnbuilt("wide", "public", wideCsv(), "wide.csv");
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
    // Each join saved a read: the bytes beyond the nine pages wanted are the gaps bridged, at
    // most the narrowest ones between the pages, one for each read saved.
    const pages = chunks.map((chunk) => chunk.offset + chunk.pageOffsets[2]!).sort((a, b) => a - b);
    const ends = new Map(chunks.map((chunk) => [chunk.offset + chunk.pageOffsets[2]!, chunk.offset + chunk.pageOffsets[2]! + chunk.pageSizes[2]!]));
    const gaps = pages.slice(1).map((from, i) => from - ends.get(pages[i]!)!).sort((a, b) => a - b);
    const wanted = chunks.reduce((sum, chunk) => sum + chunk.pageSizes[2]!, 0);
    const read = reads.reduce((sum, [a, b]) => sum + b - a, 0);
    expect(read - wanted).toBeLessThanOrEqual(gaps.slice(0, chunks.length - reads.length).reduce((sum, gap) => sum + gap, 0));
    expect(gaps.slice(0, chunks.length - reads.length).every((gap) => gap <= MAX_JOIN_GAP)).toBe(true);
    expect(read).toBeLessThan(chunks.reduce((sum, chunk) => sum + chunk.compressed, 0));
  });
});

describe("part metadata on demand", () => {
  it("reads the parts' heads, then only the pages of the row groups a `where` may read, each once per isolate", async () => {
    const quiet = recordingAfterCommit().env;
    const created = await signedFetch(quiet, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name: "two parts", visibility: "public" }), csvPart(`id,city,amount\n${rows(0, 3000)}`, "two.csv")] });
    expect(created.status).toBe(201);
    const made = (await created.json()) as { id: string };
    const appended = await appendWith(quiet, owner, made.id, rows(3000, 6000));
    expect(appended.status).toBe(201);
    const two = { id: made.id, version: ((await appended.json()) as { version: string }).version };
    expect(await buildTwin(env, two.id, two.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const parts = await twinParts(two.version);
    expect(parts.length).toBe(2);
    const [first, second] = parts as [(typeof parts)[number], (typeof parts)[number]];
    /** A query's reads of each part's head, and of its stored pages. */
    const metadataReads = (reads: { key: string; offset: number | null }[]) =>
      parts.map((part) => {
        const of = reads.filter((read) => read.key === part.key && read.offset !== null);
        return [of.filter((read) => read.offset === part.dataBytes).length, of.filter((read) => read.offset! >= part.pagesStart).length];
      });

    // An `order` without `where`: the heads only, never a row group's pages.
    const plain = await ask("order=-id&limit=5", two);
    expect(plain.body.rows.map((row) => row[0])).toEqual([5999, 5998, 5997, 5996, 5995]);
    expect(metadataReads(plain.reads)).toEqual([[1, 0], [1, 0]]);
    // `id` in the second part: the first part's row group is ruled out by its statistics, so its pages are not read.
    const late = await ask("where=id >= 4100 AND id < 4110", two);
    expect(late.body.matched).toBe(10);
    expect(metadataReads(late.reads)).toEqual([[0, 0], [0, 1]]);
    // Then the first part's: only its pages; the second's are kept.
    const early = await ask("where=id >= 100 AND id < 110", two);
    expect(early.body.rows.map((row) => row[0])).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
    expect(metadataReads(early.reads)).toEqual([[0, 1], [0, 0]]);
    // Both, and a scan of every row group: nothing more of the metadata.
    const both = await ask("where=id = 5 OR id = 5995 OR city = 'Lima'&limit=3", two);
    expect(both.body.matched).toBe(1200 + 2);
    expect(metadataReads(both.reads)).toEqual([[0, 0], [0, 0]]);
    // Each part's pages were read whole, as stored (one range, from the first byte after its summary).
    const pagesRead = [...late.reads, ...early.reads].filter((read) => read.offset !== null && parts.some((part) => part.key === read.key && read.offset! >= part.pagesStart));
    expect(pagesRead.map((read) => [read.key, read.offset])).toEqual([[second.key, second.pagesStart], [first.key, first.pagesStart]]);
  });
});

describe("parts stored before version 3", () => {
  it("a twin that reuses a part with its pages in the head (version 2) queries, and stitches its file, as one built since", async () => {
    const quiet = recordingAfterCommit().env;
    const created = await signedFetch(quiet, "POST", "/v1/dataset", owner, { parts: [collectionPart({ name: "older part", visibility: "public" }), csvPart(`id,city,amount\n${rows(0, 3000)}`, "older.csv")] });
    expect(created.status).toBe(201);
    const made = (await created.json()) as { id: string; version: string };
    expect(await buildTwin(env, made.id, made.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    // The part as a build before version 3 stored it: the whole metadata in the head, nothing after the summary.
    const [old] = await twinParts(made.version);
    const object = new Uint8Array(await (await env.CONTENT.get(old!.key))!.arrayBuffer());
    const head = new TextEncoder().encode(legacyPartMetadata(old!.meta, 2));
    const summary = object.subarray(old!.dataBytes + old!.metaBytes, old!.pagesStart);
    await env.CONTENT.put(old!.key, new Uint8Array([...object.subarray(0, old!.dataBytes), ...head, ...summary]));
    await env.DB.prepare("UPDATE parquet_parts SET meta_bytes = ? WHERE key = ?").bind(head.length, old!.key).run();

    const appended = await appendWith(quiet, owner, made.id, rows(3000, 6000));
    expect(appended.status).toBe(201);
    const two = { id: made.id, version: ((await appended.json()) as { version: string }).version };
    const queries = ["where=id >= 2990 AND id < 3010", "where=city = 'Lima' AND amount < 3&order=-id&limit=7", "where=id = 17 OR id = 5017&columns=id,amount"];
    const fromCsv = [];
    for (const query of queries) fromCsv.push((await ask(query, two)).body);
    expect(fromCsv[0]!.rows.map((row) => row[0])).toEqual(Array.from({ length: 20 }, (_, i) => 2990 + i));
    expect(await buildTwin(env, two.id, two.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const parts = await twinPartRows(two.version);
    expect(parts.map((part) => part.key)[0]).toBe(old!.key);
    for (const [i, query] of queries.entries()) {
      const answer = await ask(query, two);
      expect(answer.body, query).toEqual(fromCsv[i]);
      // Read from the twin: the row groups of a part, not the CSV segments.
      expect(answer.reads.some((read) => parts.some((part) => part.key === read.key && read.offset !== null && read.offset < part.data_bytes)), query).toBe(true);
    }
    // The file's tail is made from both forms of metadata; readers find every row.
    const url = `${ORIGIN}/v1/dataset/${two.id}/${two.version}/older.parquet`;
    const response = await worker.fetch(new Request(url), env, createExecutionContext());
    expect(response.status).toBe(200);
    const ids = (await parquetReadObjects({ file: await response.arrayBuffer(), columns: ["id"] })).map((row) => Number(row.id));
    expect(ids).toEqual(Array.from({ length: 6000 }, (_, i) => i));
  });
});

/** `id`, a wide `note` of 40 seeded letters, then `city` (a dictionary of five): `note`'s pages after any one are wider a gap than a read bridges. */
function dictionaryCsv(): string {
  const letters = seededLetters(5);
  let text = "id,note,city\n";
  for (let n = 0; n < ROWS; n++) {
    text += `${n},${letters(40)},${CITIES[n % CITIES.length]}\n`;
  }
  return text;
}

describe("dictionary pages kept in the isolate", () => {
  it("a query reads a chunk's dictionary page once; later queries on its row group read data pages only, and answer as the CSV does", async () => {
    const made = await createUnbuilt("dictionaries", "public", dictionaryCsv(), "dictionaries.csv");
    const queries = [`where=id >= ${MIDDLE * PAGE_ROWS + 10} AND id < ${MIDDLE * PAGE_ROWS + 20}`, `where=id >= ${20 * PAGE_ROWS} AND id < ${20 * PAGE_ROWS + 5}&columns=city,id`, `where=id = 3 AND city = 'Lima'`];
    const fromCsv: { rows: unknown[][]; matched: number }[] = [];
    for (const query of queries) fromCsv.push((await ask(query, made)).body);
    expect(fromCsv[1]!.rows).toEqual(Array.from({ length: 5 }, (_, i) => [CITIES[(20 * PAGE_ROWS + i) % CITIES.length], 20 * PAGE_ROWS + i]));
    expect(await buildTwin(env, made.id, made.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const part = await twinPart(made.version);
    expect(part.meta.rowGroups.length).toBe(1);
    const city = part.meta.rowGroups[0]!.columns[2]!;
    expect(city.dictionary).toBe(true);
    const dictionary = [city.offset, city.offset + city.pageOffsets[0]!] as const;
    const readsOfDictionary = (reads: { key: string; offset: number | null; length: number | null }[]) =>
      reads.filter((read) => read.key === part.key && read.offset !== null && read.offset < dictionary[1] && read.offset + read.length! > dictionary[0]).length;

    const answers = [];
    for (const query of queries) answers.push(await ask(query, made));
    answers.forEach((answer, i) => expect(answer.body, queries[i]).toEqual(fromCsv[i]));
    // The first query reads `city`'s dictionary page with its data page; the others, on other
    // pages of the same row group (the second without `note`, the third filtering on `city`
    // too), find it kept, and no read reaches it.
    expect(answers.map((answer) => readsOfDictionary(answer.reads))).toEqual([1, 0, 0]);
    const cityPage = (page: number) => city.offset + city.pageOffsets[page]!;
    expect(answers[1]!.reads.some((read) => read.key === part.key && read.offset === cityPage(20))).toBe(true);
  });

  it("a private version's kept pages answer no one outside its team: the access check comes first and reads nothing of R2", async () => {
    const outsider = await createKey("other-team", "other-user");
    const secret = await createUnbuilt("secret dictionaries", "private", dictionaryCsv(), "secret.csv");
    expect(await buildTwin(env, secret.id, secret.version, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    const query = `where=id >= ${MIDDLE * PAGE_ROWS} AND id < ${MIDDLE * PAGE_ROWS + 3}`;
    // The team's query keeps the row group's metadata and dictionary pages in the isolate.
    expect((await ask(query, secret)).body.matched).toBe(3);
    const url = `${ORIGIN}/v1/dataset/${secret.id}/${secret.version}/rows?${query}`;
    for (const headers of [new Headers(), await signRequest({ method: "GET", url }, outsider)]) {
      const { status, text, reads } = await fetchCounted(url, headers);
      expect(status).toBe(404);
      expect(text).not.toContain(CITIES[0]);
      expect(reads).toEqual([]);
    }
  });
});
