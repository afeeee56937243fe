// The dataset page's preview asks questions without script (docs/catalog.md "Filter, sort and
// page"): a `where` filter form, headings that sort, pages of 100 with a row to jump to, the
// answer as a CSV link, and a 400 page that points at what is wrong in a filter.
import { beforeAll, describe, expect, it } from "vitest";
import { expectCatalogHeaders, linkHref, page, tableRows, text, writeWithTwin } from "./catalog.helpers.ts";
import { createDataset, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let key: TestKey;
let cities: { id: string; version: string };

const STATES = ["NY", "CA", "TX", "WA"];
// 250 rows: id rises, state cycles, population falls; every 7th population is missing.
const CSV =
  "id,state,population\n" +
  Array.from({ length: 250 }, (_, i) => `${i + 1},${STATES[i % 4]},${i % 7 === 6 ? "" : 10_000 - i * 10}`).join("\n") +
  "\n";

beforeAll(async () => {
  key = await createKey("preview-query-team", "preview-query-user");
  cities = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Preview cities", visibility: "public" }, CSV, { fileName: "cities.csv" });
});

const previewRows = async (search: string) => {
  const shown = await page(`/datasets/${cities.id}${search}`);
  expect(shown.status).toBe(200);
  return { shown, rows: tableRows(shown.html, "preview-caption") };
};

describe("the dataset page's preview as a query", () => {
  it("filters with a where expression: matching rows only, counted, with their row numbers in the file", async () => {
    const { shown, rows } = await previewRows(`?where=${encodeURIComponent("state = 'NY' AND id > 200")}`);
    expectCatalogHeaders(shown.headers);
    const expected = Array.from({ length: 250 }, (_, i) => i + 1).filter((id) => id > 200 && (id - 1) % 4 === 0);
    expect(rows.map((row) => row[1])).toEqual(expected.map(String));
    expect(rows.map((row) => row[0])).toEqual(expected.map(String));
    expect(text(shown.html)).toContain(`Rows 1–${expected.length} of ${expected.length} matching rows (of 250)`);
    // The form keeps what was typed.
    expect(shown.html).toContain(`value="state = &#39;NY&#39; AND id &gt; 200"`);
  });

  it("offers the answer as a CSV download of the shown version, which holds every matching row", async () => {
    const { shown } = await previewRows(`?where=${encodeURIComponent("state = 'TX'")}&order=-id`);
    const href = linkHref(shown.html, "Download these rows as CSV");
    expect(href).toBe(`/v1/dataset/${cities.id}/${cities.version}/rows.csv?where=state+%3D+%27TX%27&order=-id`);
    const csv = await (await send("GET", href!)).text();
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe("id,state,population");
    const ids = lines.slice(1).map((line) => Number(line.split(",")[0]));
    expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1).filter((id) => (id - 1) % 4 === 2).reverse());
  });

  it("sorts by a heading's link: ascending, then descending, missing values last, with aria-sort", async () => {
    const first = await page(`/datasets/${cities.id}`);
    const ascending = /<a href="([^"]*)"><span dir="auto">population<\/span>/.exec(first.html)?.[1];
    expect(ascending).toBe("?order=population#preview");
    const up = await previewRows(ascending!.replace("#preview", ""));
    expect(up.rows[0]?.[3]).toBe("7510");
    expect(up.shown.html).toContain('aria-sort="ascending"');
    const descending = /<th scope="col" class="num" aria-sort="ascending"><a href="([^"]+)"/.exec(up.shown.html)?.[1];
    expect(descending).toBe("?order=-population#preview");
    const down = await previewRows("?order=-population");
    expect(down.rows[0]?.slice(1)).toEqual(["1", "NY", "10000"]);
    expect(down.shown.html).toContain('aria-sort="descending"');
    // Missing cells sort last either way: the last page of the descending order holds them.
    const last = await previewRows("?order=-population&row=201");
    expect(last.rows.at(-1)?.[3]).toBe("");
  });

  it("pages through every row: next and previous links, and a row number to jump to", async () => {
    const firstPage = await previewRows("");
    expect(firstPage.rows.length).toBe(100);
    expect(linkHref(firstPage.shown.html, "Next 100")).toBe("?row=101#preview");
    expect(linkHref(firstPage.shown.html, "Previous 100")).toBeNull();
    const second = await previewRows("?row=101");
    expect(second.rows[0]?.[0]).toBe("101");
    expect(second.rows.length).toBe(100);
    expect(text(second.shown.html)).toContain("Rows 101–200 of 250");
    expect(linkHref(second.shown.html, "Previous 100")).toBe(`/datasets/${cities.id}#preview`);
    expect(linkHref(second.shown.html, "Next 100")).toBe("?row=201#preview");
    const jumped = await previewRows("?row=245");
    expect(jumped.rows.map((row) => row[0])).toEqual(["245", "246", "247", "248", "249", "250"]);
    expect(jumped.shown.html).toContain('<input id="row" name="row" type="number" min="1" max="250" value="245"');
    const past = await previewRows("?row=999");
    expect(past.rows).toEqual([]);
    expect(text(past.shown.html)).toContain("No rows from row 999 on, of 250");
    // A filtered answer pages the same way, keeping its filter in every link.
    const filtered = await previewRows(`?where=${encodeURIComponent("population IS NULL")}`);
    expect(filtered.rows.length).toBe(35);
    expect(linkHref(filtered.shown.html, "Next 100")).toBeNull();
  });

  it("answers a filter that cannot run with a 400 page that says where it goes wrong", async () => {
    for (const [where, position] of [
      ["population >", 13],
      ["populaton > 3", 1],
      ["state = 3", 9],
    ] as const) {
      const shown = await page(`/datasets/${cities.id}?where=${encodeURIComponent(where)}`);
      expect(shown.status).toBe(400);
      expectCatalogHeaders(shown.headers, 400);
      expect(shown.html).toContain('aria-invalid="true"');
      expect(shown.html).toContain('id="where-error" class="notice" role="alert"');
      expect(text(shown.html)).toContain(`at character ${position}`);
      const pointer = /<pre class="pointer" aria-hidden="true">([\s\S]*?)<\/pre>/.exec(shown.html)?.[1] ?? "";
      expect(pointer.split("\n")[1]).toBe(" ".repeat(position - 1) + "^");
      expect(tableRows(shown.html, "preview-caption")).toEqual([]);
    }
    const badOrder = await page(`/datasets/${cities.id}?order=nope`);
    expect(badOrder.status).toBe(400);
    expect(text(badOrder.html)).toContain("This sort cannot run.");
  });

  it("asks nothing of a private dataset: the page is a 404 whatever the query", async () => {
    const hidden = await createDataset(key, "a\n1\n", { name: "Preview hidden", visibility: "private" });
    for (const search of ["", "?where=a%3D1", "?order=-a", "?row=2"]) {
      const shown = await page(`/datasets/${hidden.id}${search}`);
      expect(shown.status).toBe(404);
    }
  });
});
