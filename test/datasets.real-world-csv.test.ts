// Shapes of CSV met in real files, through the API (docs/api.md#writes): a bare `"` inside an unquoted
// field is accepted by validation, the rows endpoint and the catalog preview, and stored byte
// for byte; `;`- and tab-separated files, blank lines inside a table and lone-CR line ends get
// a 422 that says what to change, and change nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { page, tableRows } from "./catalog.helpers.ts";
import { appendRows, createDataset, csvPart, download, expectProblem, gunzipText, send, write, collectionPart } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let key: TestKey;

beforeAll(async () => {
  key = await createKey("rw-team", "rw-owner");
});

/** Cells as Python's csv module and pandas read them (test/csv.bare-quotes.test.ts). */
const HEIGHTS = "name,height,where\nAnn,5'11\",37°36'37.8\"N\n\"Bo, Jr.\",6'0\",\"say \"\"hi\"\"\"\n";
const HEIGHT_ROWS = [
  ["Ann", "5'11\"", "37°36'37.8\"N"],
  ["Bo, Jr.", "6'0\"", 'say "hi"'],
];

async function rowsOf(id: string, query = ""): Promise<string[][]> {
  const response = await send("GET", `/v1/dataset/${id}/latest/rows${query}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { rows: string[][] }).rows;
}

describe("a quote inside an unquoted field", () => {
  it("is accepted on create and append, read back cell for cell, and stored byte for byte", async () => {
    const d = await createDataset(key, HEIGHTS, { name: "Heights", visibility: "public" });
    const appended = await appendRows(key, d.id, 'Cy,5\'2",x"y\n');
    expect(appended.status).toBe(201);
    const all = [...HEIGHT_ROWS, ["Cy", "5'2\"", 'x"y']];
    expect(await rowsOf(d.id)).toEqual(all);
    for (let offset = 0; offset < all.length; offset++) expect(await rowsOf(d.id, `?offset=${offset}&limit=1`)).toEqual(all.slice(offset, offset + 1));
    const { version } = (await appended.json()) as { version: string };
    const source = d.source.replace(d.version, version);
    const csv = await (await download(source.replace(/\.gz$/, ""))).text();
    expect(csv).toBe(`${HEIGHTS}Cy,5'2",x"y\n`);
    expect(await gunzipText(await download(source))).toBe(csv);
    expect(await (await download(d.source.replace(/\.gz$/, ""))).text()).toBe(HEIGHTS);
  });

  it("shows in the catalog preview as the literal character", async () => {
    const d = await createDataset(key, HEIGHTS, { name: "Heights preview", visibility: "public" });
    const shown = await page(`/datasets/${d.id}`);
    expect(shown.status).toBe(200);
    expect(tableRows(shown.html, "preview-caption").map((row) => row.slice(1))).toEqual(HEIGHT_ROWS);
  });

  it("still refuses unbalanced quotes in a quoted field, and stores nothing", async () => {
    for (const csv of ['a,b\n"x"y,1\n', 'a,b\n1,"open\n']) {
      const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Bad quotes" }), csvPart(csv)]);
      expect(await expectProblem(response, 422, "invalid_csv")).toMatchObject({ row: 2 });
    }
  });
});

describe("separators, blank lines and line ends", () => {
  it("refuses a semicolon-separated file, naming the separator", async () => {
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Semicolons" }), csvPart("name;price\nfoo;1,5\n")]);
    expect(await expectProblem(response, 422, "invalid_csv")).toMatchObject({ row: 1, separator: ";" });
  });

  it("refuses a TSV instead of storing one column, on create and on replace", async () => {
    const created = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Tabs" }), csvPart("a\tb\n1\t2\n", "data.tsv")]);
    expect(await expectProblem(created, 422, "invalid_csv")).toMatchObject({ row: 1, separator: "\t" });
    const d = await createDataset(key, "a,b\n1,2\n", { name: "Replace with tabs", visibility: "public" });
    const replaced = await write("PUT", `/v1/dataset/${d.id}`, key, [csvPart("a\tb\n1\t2\n")]);
    expect(await expectProblem(replaced, 422, "invalid_csv")).toMatchObject({ separator: "\t" });
    expect(await rowsOf(d.id)).toEqual([[1, 2]]);
  });

  it("hints at the separator of an appended row, and accepts a genuine one-column CSV", async () => {
    const d = await createDataset(key, "a,b\n1,2\n", { name: "Append semicolons", visibility: "public" });
    expect(await expectProblem(await appendRows(key, d.id, "3;4\n"), 422, "column_count_mismatch")).toMatchObject({ separator: ";" });
    const single = await createDataset(key, "value\n1;2\n3\n", { name: "One column", visibility: "public" });
    expect(await rowsOf(single.id)).toEqual([["1;2"], ["3"]]);
  });

  it("refuses a blank line inside a table of several columns, and one before the header", async () => {
    const inside = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Blank" }), csvPart("a,b\n1,2\n\n3,4\n")]);
    expect(await expectProblem(inside, 422, "invalid_csv")).toMatchObject({ row: 3 });
    const before = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Blank first" }), csvPart("\na,b\n1,2\n")]);
    expect(await expectProblem(before, 422, "invalid_csv")).toMatchObject({ row: 1 });
  });

  it("refuses lone-CR line ends", async () => {
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "Classic Mac" }), csvPart("a,b\r1,2\r3,4\r")]);
    expect(await expectProblem(response, 422, "invalid_csv")).toMatchObject({ row: 1 });
  });
});
