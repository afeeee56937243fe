// The dataset page's column summaries (docs/catalog.md "Column summaries"): read from the
// statistics document the version's Parquet build stored, drawn as inline SVG with a text
// equivalent, said in words while that build is pending or has failed (and then never cached),
// and only ever of the published version the anonymous catalog may show.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ColumnSummaries } from "../src/catalog/components/column-summaries.tsx";
import { leadingColumns } from "../src/columnar/statistics-object.ts";
import { markTwinFailed } from "../src/columnar/store.ts";
import type { StatisticsDocument } from "../src/columnar/statistics/document.ts";
import { expectCatalogHeaders, page, text, writeWithTwin } from "./catalog.helpers.ts";
import { send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let key: TestKey;

beforeAll(async () => {
  key = await createKey("columns-team", "columns-owner");
});

const CSV = [
  "id,price,day,ok,city",
  "1,2.5,2024-01-02,true,Zürich",
  "2,,1969-12-31,false,Genève",
  "3,-1.5,2024-12-31,true,Zürich",
  "4,10,,,東京",
].join("\n") + "\n";

/** Each column's card: its heading text and its inner HTML. */
function cards(html: string): { heading: string; html: string }[] {
  const list = /<ol class="cols">([\s\S]*?)<\/ol>/.exec(html)?.[1] ?? "";
  return [...list.matchAll(/<li><h3>([\s\S]*?)<\/h3>([\s\S]*?)<\/li>/g)].map((m) => ({ heading: text(m[1] ?? ""), html: m[2] ?? "" }));
}

/** A description list's terms and values, as text. */
function facts(html: string): Record<string, string> {
  const list = /<dl class="stats">([\s\S]*?)<\/dl>/.exec(html)?.[1] ?? "";
  return Object.fromEntries([...list.matchAll(/<dt>([\s\S]*?)<\/dt><dd>([\s\S]*?)<\/dd>/g)].map((m) => [text(m[1] ?? ""), text(m[2] ?? "")]));
}

/** A table's body rows as [header cell, data cell] text. */
function rows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...(row[1] ?? "").matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => text(cell[1] ?? "")));
}

describe("column summaries on the dataset page", () => {
  it("says the statistics are being computed while the twin is pending, and lets no cache keep that page", async () => {
    const { id } = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Columns pending", visibility: "public" }, CSV, { build: false });
    const shown = await page(`/datasets/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    expect(shown.headers.get("cache-tag")).toBeNull();
    expect(text(shown.html)).toContain("Column statistics for this version are still being computed");
    expect(shown.html).not.toContain("<svg");
    expect(shown.html).not.toContain('<ol class="cols">');
    // The rest of the page is there as ever.
    expect(text(shown.html)).toContain("First 4 rows of 4");
  });

  it("summarises every column once the twin is built: type, missing, distinct, range, mean, median, top values", async () => {
    const { id, version } = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Columns ready", visibility: "public" }, CSV);
    const shown = await page(`/datasets/${id}`);
    expectCatalogHeaders(shown.headers);
    expect(shown.headers.get("cache-tag")).toBe(`dataset:${id},catalog`);
    const document = (await (await send("GET", `/v1/dataset/${id}/${version}/statistics`)).json()) as StatisticsDocument;
    expect(text(shown.html)).toContain("Counted over all 4 rows.");
    expect(shown.html).toContain(`<a href="/v1/dataset/${id}/${version}/statistics">statistics document</a>`);

    const [idCard, price, day, ok, city] = cards(shown.html);
    expect(cards(shown.html).map((c) => c.heading)).toEqual(["id integer", "price number", "day date", "ok boolean", "city string"]);
    expect(facts(idCard!.html)).toEqual({ Missing: "0", Distinct: "4", Range: "1 to 4", Mean: "2.5", "Std. dev.": "1.118034", Median: "2.5" });
    expect(facts(price!.html)).toMatchObject({ Missing: "1 (25%)", Distinct: "3", Range: "-1.5 to 10", Mean: "3.6666667", Median: "2.5" });
    expect(facts(day!.html)).toEqual({ Missing: "1 (25%)", Distinct: "3", Range: "1969-12-31 to 2024-12-31" });
    expect(facts(ok!.html)).toEqual({ Missing: "1 (25%)", Distinct: "2", True: "2 (50%)", False: "1 (25%)" });
    expect(facts(city!.html)).toEqual({ Missing: "0", Distinct: "3", Length: "2 to 6 characters" });

    // Numbers and dates: a histogram in SVG, named for assistive technology, inside the summary
    // of a disclosure whose table lists every bin; its counts are the document's.
    for (const [card, column] of [
      [idCard!, document.columns[0]!],
      [price!, document.columns[1]!],
      [day!, document.columns[2]!],
    ] as const) {
      const chart = /<details class="chart"><summary>(<svg [^>]*>)([\s\S]*?)<\/svg>[\s\S]*?<\/summary>([\s\S]*?)<\/details>/.exec(card.html);
      expect(chart, column.name).not.toBeNull();
      const [, svg, drawing, table] = chart!;
      expect(svg).toContain('role="img"');
      expect(svg).toMatch(/aria-label="Histogram of [^"]+ values in \d+ (equal bins|bin) from [^"]+; the tallest, [^"]+ holds [\d,]+\."/);
      const histogram = (column as unknown as { histogram: { count: number }[] }).histogram;
      expect(rows(table!).map((r) => Number(r[1]!.replace(/,/g, "")))).toEqual(histogram.map((b) => b.count));
      // One closed subpath a non-empty bin, then the baseline.
      expect(/<path d="([^"]*)"/.exec(drawing!)?.[1]?.match(/M[^z]*z/g)?.length).toBe(histogram.filter((b) => b.count > 0).length);
    }
    expect(rows(day!.html)[0]).toEqual(["1969-12-31 to 1975-07-01", "1"]);
    expect(idCard!.html).toContain('<span class="axis" aria-hidden="true"><span dir="auto">1</span><span dir="auto">4</span></span>');

    // Text and booleans: the most frequent values, each row with a bar hidden from assistive technology.
    expect(rows(city!.html)).toEqual([
      ["Zürich", "2"],
      ["Genève", "1"],
      ["東京", "1"],
    ]);
    expect(city!.html).toContain('<caption>Most frequent values</caption>');
    expect(city!.html).toContain('<th dir="auto">Zürich<svg class="bar" aria-hidden="true"><rect width="100%" height="4"></rect></svg></th>');
    expect(city!.html).toContain('<th dir="auto">Genève<svg class="bar" aria-hidden="true"><rect width="50%" height="4"></rect></svg></th>');
    expect(rows(ok!.html)).toEqual([
      ["true", "2"],
      ["false", "1"],
    ]);
  });

  it("says so plainly when the statistics can never be computed, with the reason", async () => {
    const { id, version } = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Columns failed", visibility: "public" }, CSV, { build: false });
    await markTwinFailed(env.DB, version, "the file holds a value no reader can take");
    const shown = await page(`/datasets/${id}`);
    expectCatalogHeaders(shown.headers);
    expect(text(shown.html)).toContain("Column statistics could not be computed for this version: the file holds a value no reader can take");
    expect(shown.html).not.toContain("<svg");
  });

  it("summarises the first 40 columns of a wide version and says how many there are", async () => {
    const names = Array.from({ length: 60 }, (_, i) => `c${i}`);
    const { id } = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Columns wide", visibility: "public" }, `${names.join(",")}\n${names.map((_, i) => i).join(",")}\n`);
    const shown = await page(`/datasets/${id}`);
    expect(cards(shown.html).map((c) => c.heading)).toEqual(names.slice(0, 40).map((n) => `${n} integer`));
    expect(text(shown.html)).toContain("Counted over all 1 row; the first 40 of 60 columns.");
  });

  it("never shows a private dataset's statistics, nor a draft's: the page is the published version's", async () => {
    const secret = "id,code\n1,secret-draft-value\n2,secret-draft-value\n";
    const { id } = await writeWithTwin(key, "POST", "/v1/dataset", { name: "Columns private", visibility: "private" }, secret);
    const hidden = await page(`/datasets/${id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.html).not.toContain("secret-draft-value");

    // Made public with new content: the version written while private stays a draft.
    const { version } = await writeWithTwin(key, "PUT", `/v1/dataset/${id}`, { name: "Columns private", visibility: "public" }, "id,code\n7,public-value\n8,public-value\n");
    const shown = await page(`/datasets/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.html).not.toContain("secret-draft-value");
    expect(rows(cards(shown.html)[1]!.html)).toEqual([["public-value", "2"]]);
    expect(shown.html).toContain(`<a href="/v1/dataset/${id}/${version}/statistics">`);

    // Signed requests see the anonymous catalog too.
    const signed = await page(`/datasets/${id}`, { key });
    expect(signed.html).not.toContain("secret-draft-value");
  });
});

describe("what the summaries say of estimates", () => {
  const document: StatisticsDocument = {
    rows: 1_000_000,
    columns: [
      {
        name: "amount",
        type: "number",
        nulls: 0,
        distinct: 912_345,
        distinct_approximate: true,
        min: 0,
        max: 1e21,
        mean: 0.000000123,
        std: 12345.678912,
        median: 511.25,
        approximate: true,
        nan: 3,
        histogram: [{ from: 0, to: 1e21, count: 999_997 }],
      },
      { name: "label", type: "string", nulls: 0, distinct: 150_000, distinct_approximate: true, min_length: 1, max_length: 1, mean_length: 1, top: [{ value: "x".repeat(200), count: 5000 }], top_approximate: true },
      // Past the exact top-value counters every kept count may be 1 (a lower bound): a table still.
      { name: "code", type: "string", nulls: 0, distinct: 99_999, min_length: 5, max_length: 5, mean_length: 5, top: [{ value: "a", count: 1 }], top_approximate: true },
      // Exactly as many distinct values as values: no table of counts of 1.
      { name: "key", type: "string", nulls: 1, distinct: 999_999, min_length: 5, max_length: 5, mean_length: 5, top: [{ value: "k", count: 1 }] },
    ],
  };

  it("marks approximate distinct counts, medians, bin counts and top values, and prints extreme numbers readably", async () => {
    const html = String(await ColumnSummaries({ statistics: { state: "ready", statistics: document }, columnCount: 4, documentPath: "/doc" }));
    const [amount, label, code, unique] = cards(html);
    expect(facts(amount!.html)).toEqual({
      Missing: "0",
      Distinct: "about 912,345",
      Range: "0 to 1.00000e+21",
      Mean: "1.23000e-7",
      "Std. dev.": "12,345.679",
      Median: "about 511.25",
      NaN: "3 (<0.1%)",
    });
    expect(amount!.html).toContain("<caption>Values per bin (approximate counts)</caption>");
    expect(amount!.html).toContain("values in 1 bin from 0 to 1.00000e+21; the tallest, 0 to 1.00000e+21, holds about 999,997.");
    expect(facts(label!.html)).toMatchObject({ Distinct: "about 150,000", Length: "1 character" });
    expect(label!.html).toContain("<caption>Most frequent values (approximate counts)</caption>");
    expect(rows(label!.html)[0]).toEqual(["x".repeat(59) + "…", "5,000"]);
    expect(rows(code!.html)).toEqual([["a", "1"]]);
    expect(unique!.html).toContain('<p class="hint">Every value is different.</p>');
    expect(unique!.html).not.toContain("<table");
  });
});

describe("reading the leading columns of a statistics document", () => {
  it("keeps only the column entries that arrived whole, however the text was cut", () => {
    const whole = JSON.stringify({
      rows: 2,
      columns: [
        { name: 'a "quoted" {name}', type: "string", nulls: 0, distinct: 1, top: [{ value: "}]", count: 2 }] },
        { name: "b", type: "integer", nulls: 0, distinct: 2, min: 1, max: 2, histogram: [{ from: 1, to: 2, count: 2 }] },
      ],
    });
    const parsed = JSON.parse(whole) as StatisticsDocument;
    expect(leadingColumns(whole, 40)).toEqual(parsed);
    expect(leadingColumns(whole, 1)).toEqual({ rows: 2, columns: [parsed.columns[0]] });
    // Up to b's closing brace (the text ends `}]}`), b is incomplete.
    for (let cut = whole.indexOf('"b"'); cut <= whole.length - 3; cut++) expect(leadingColumns(whole.slice(0, cut), 40).columns).toEqual([parsed.columns[0]]);
    expect(() => leadingColumns("[]", 40)).toThrow(RangeError);
  });
});
