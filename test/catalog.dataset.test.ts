// `GET /datasets/:id`: a public dataset's page — metadata, version history with per-version
// downloads, a 100-row preview, download links that really download, copyable commands —
// and a 404 page for anything private, deleted, missing or malformed.
import { beforeAll, describe, expect, it } from "vitest";
import { expectCatalogHeaders, linkHref, page, tableRows, text, writeWithTwin } from "./catalog.helpers.ts";
import { appendRows, collectionPart, createDataset, csvPart, download, gunzipText, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let key: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  key = await createKey("page-team", "page-owner");
  stranger = await createKey("page-other-team", "page-stranger");
});

const rowsCsv = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${from + i},value ${from + i}\n`).join("");

describe("GET /datasets/:id (catalog dataset page)", () => {
  it("shows metadata: name, description, key words, contact, team, owner, created, last update", async () => {
    // Its statistics built: a page whose statistics are pending is not cached (catalog.columns.test.ts).
    const d = await writeWithTwin(key, "POST", "/v1/dataset", {
      name: "Page cities",
      visibility: "public",
      properties: { description: "Line one\nLine two", key_words: ["geo", "urban"], contact_name: "Ada Lovelace" },
    }, "id,value\n1,a\n", { fileName: "cities.csv" });
    const shown = await page(`/datasets/${d.id}`);
    expect(shown.status).toBe(200);
    expectCatalogHeaders(shown.headers);
    expect(shown.html).toContain('<h1 dir="auto">Page cities</h1>');
    expect(shown.html).toContain("<title>Page cities · pubset</title>");
    const body = text(shown.html);
    for (const fact of ["Line one\nLine two".replace("\n", " "), "Ada Lovelace", "page-team", "page-owner", d.id, "Created", "Last update"]) expect(body).toContain(fact);
    expect(linkHref(shown.html, "geo")).toBe("/?q=geo");
    expect(linkHref(shown.html, "page-team")).toBe("/?team=page-team");
    expect(linkHref(shown.html, "page-owner")).toBe("/?owner=page-owner");
  });

  it("previews the first 100 rows of the latest version in its own scrolling region", async () => {
    const d = await createDataset(key, "n,label\n" + rowsCsv(0, 150), { name: "Page long", visibility: "public" });
    const shown = await page(`/datasets/${d.id}`);
    const rows = tableRows(shown.html, "preview-caption");
    expect(rows.length).toBe(100);
    expect(rows[0]).toEqual(["1", "0", "value 0"]);
    expect(rows[99]).toEqual(["100", "99", "value 99"]);
    expect(text(shown.html)).toContain("First 100 rows of 150");
    expect(shown.html).toContain('<div class="scroll tall" role="region" aria-labelledby="preview-caption" tabindex="0">');
  });

  it("names each column's type in the preview's headings and right-aligns numbers", async () => {
    const d = await createDataset(key, "zip,amount,when\n01234,1.5,2024-01-01\n99999,2,2024-01-02\n", { name: "Page types", visibility: "public" });
    const shown = await page(`/datasets/${d.id}`);
    expect(shown.html).toContain('<th scope="col"><a href="?order=zip#preview"><span dir="auto">zip</span></a><span class="type">string</span></th>');
    expect(shown.html).toContain('<th scope="col" class="num"><a href="?order=amount#preview"><span dir="auto">amount</span></a><span class="type">number</span></th>');
    expect(shown.html).toContain('<span class="type">date</span>');
    expect(shown.html).toContain('<td class="num">1.5</td>');
    expect(shown.html).toContain("<td>01234</td>");
  });

  it("cuts very wide and very long data, and says a header-only version has no rows", async () => {
    const columns = Array.from({ length: 60 }, (_, i) => `c${i}`);
    const wide = await createDataset(key, `${columns.join(",")}\n${columns.map(() => "x".repeat(500)).join(",")}\n`, { name: "Page wide", visibility: "public" });
    const shown = await page(`/datasets/${wide.id}`);
    expect(text(shown.html)).toContain("first 40 of 60 columns");
    const [row] = tableRows(shown.html, "preview-caption");
    expect(row?.length).toBe(41);
    expect(row?.[1]).toBe("x".repeat(119) + "…");
    const empty = await createDataset(key, "only,header\n", { name: "Page empty", visibility: "public" });
    expect(text((await page(`/datasets/${empty.id}`)).html)).toContain("no data rows yet");
  });

  it("links CSV and gzip downloads (the record's `source`) that return the content", async () => {
    const csv = "id,value\n1,a\n2,b\n";
    const d = await createDataset(key, csv, { name: "Page download", visibility: "public" }, "page.csv");
    const shown = await page(`/datasets/${d.id}`);
    const csvHref = /<a class="button" href="([^"]+)" download="page.csv">Download CSV/.exec(shown.html)?.[1];
    const gzipHref = /<a class="button" href="([^"]+)" download="page.csv.gz">Download gzip/.exec(shown.html)?.[1];
    expect(gzipHref).toBe(d.source);
    expect(csvHref).toBe(d.source.replace(/\.gz$/, ""));
    expect(await (await download(csvHref!)).text()).toBe(csv);
    expect(await gunzipText(await download(gzipHref!))).toBe(csv);
  });

  it("shows copyable CLI, curl and DuckDB commands for the dataset", async () => {
    const d = await createDataset(key, "a\n1\n", { name: "Page snippet", visibility: "public" }, "snip.csv");
    const shown = await page(`/datasets/${d.id}`);
    const pre = /<pre tabindex="0"[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(shown.html)?.[1] ?? "";
    expect(pre).toContain(`pubset download ${d.id} -o snip.csv --url https://pubset.test`);
    expect(pre).toContain(`curl -fL --compressed -o snip.csv https://pubset.test/v1/dataset/${d.id}/latest/snip.csv`);
    // The page escapes the quotes; a browser shows (and copies) them as typed.
    const text = pre.replaceAll("&quot;", '"').replaceAll("&#39;", "'");
    expect(text).toContain(`duckdb -c "SELECT * FROM 'https://pubset.test/v1/dataset/${d.id}/latest/snip.parquet' LIMIT 10"`);
  });

  it("lists the version history newest first, each version with downloads of its own file", async () => {
    const d = await createDataset(key, "id,value\n1,a\n", { name: "Page history", visibility: "public" }, "first.csv");
    expect((await appendRows(key, d.id, "2,b\n")).status).toBe(201);
    const replaced = await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ name: "Page history v3" }), csvPart("x,y,z\n1,2,3\n", "second.csv")]);
    expect(replaced.status).toBe(200);
    const shown = await page(`/datasets/${d.id}`);
    expect(shown.html).toContain('<h1 dir="auto">Page history v3</h1>');
    const versions = tableRows(shown.html, "versions-caption");
    expect(versions.map((v) => [v[0]?.endsWith("(latest)"), v[2], v[3]])).toEqual([
      [true, "1", "3"],
      [false, "2", "2"],
      [false, "1", "2"],
    ]);
    const csvLinks = [...shown.html.matchAll(/<a href="([^"]+)" download="[^"]+" aria-label="CSV of version/g)].map((m) => m[1] ?? "");
    expect(csvLinks[0]).toMatch(/\/second\.csv$/);
    expect(csvLinks[2]).toMatch(/\/first\.csv$/);
    expect(await (await download(csvLinks[1]!)).text()).toBe("id,value\n1,a\n2,b\n");
    expect(await (await download(csvLinks[2]!)).text()).toBe("id,value\n1,a\n");
  });

  it("pages a long history with 'Older versions' and 'Newest versions' links", async () => {
    const d = await createDataset(key, "n,label\n" + rowsCsv(0, 1), { name: "Page many versions", visibility: "public" });
    for (let i = 1; i <= 21; i++) expect((await appendRows(key, d.id, rowsCsv(i, i + 1))).status).toBe(201);
    const first = await page(`/datasets/${d.id}`);
    expect(tableRows(first.html, "versions-caption").length).toBe(20);
    const older = linkHref(first.html, "Older versions");
    expect(older).toMatch(new RegExp(`^/datasets/${d.id}\\?versions=[^#]+#versions$`));
    const second = await page(older!.replace(/#.*$/, ""));
    expect(second.status).toBe(200);
    expect(tableRows(second.html, "versions-caption").map((v) => v[2])).toEqual(["2", "1"]);
    expect(linkHref(second.html, "Newest versions")).toBe(`/datasets/${d.id}#versions`);
    expect(linkHref(second.html, "Older versions")).toBeNull();
    const bad = await page(`/datasets/${d.id}?versions=garbage`);
    expect(bad.status).toBe(400);
    expectCatalogHeaders(bad.headers, bad.status);
  });

  it("answers a private dataset with the same 404 page as a missing one, whoever signs the request", async () => {
    const secret = await createDataset(key, "a\n1\n", { name: "Page private secret", visibility: "private" });
    const missing = await page("/datasets/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expectCatalogHeaders(missing.headers, missing.status);
    expect(missing.html).toContain("<h1>Dataset not found</h1>");
    for (const options of [{}, { key }, { key: stranger }]) {
      const hidden = await page(`/datasets/${secret.id}`, options);
      expect(hidden.status).toBe(404);
      expect(hidden.html).toBe(missing.html);
    }
  });

  it("404s a malformed id, and a dataset once made private or deleted", async () => {
    expect((await page("/datasets/not-a-uuid")).status).toBe(404);
    expect((await page("/datasets/00000000-0000-4000-8000-00000000000A")).status).toBe(404);
    const d = await createDataset(key, "a\n1\n", { name: "Page soon private", visibility: "public" });
    expect((await page(`/datasets/${d.id}`)).status).toBe(200);
    expect((await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })])).status).toBe(200);
    expect((await page(`/datasets/${d.id}`)).status).toBe(404);
    expect((await page("/?q=soon+private")).html).not.toContain(d.id);
    const gone = await createDataset(key, "a\n1\n", { name: "Page soon deleted", visibility: "public" });
    expect((await send("DELETE", `/v1/dataset/${gone.id}`, { key })).status).toBe(204);
    expect((await page(`/datasets/${gone.id}`)).status).toBe(404);
  });

  it("redirects hand-typed variants and answers unknown pages with an HTML 404 for browsers", async () => {
    const d = await createDataset(key, "a\n1\n", { name: "Page slash", visibility: "public" });
    const slash = await send("GET", `/datasets/${d.id}/?versions=abc`, { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toBe(`/datasets/${d.id}?versions=abc`);
    const list = await send("GET", "/datasets", { redirect: "manual" });
    expect([list.status, list.headers.get("location")]).toEqual([301, "/"]);

    const browser = { headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" } };
    for (const path of [`/datasets/${d.id}/extra`, "/no-such-page", "/datasets/a/b/c"]) {
      const shown = await page(path, browser);
      expect(shown.status).toBe(404);
      expectCatalogHeaders(shown.headers, shown.status);
      expect(shown.html).toContain("<h1>Page not found</h1>");
      expect(linkHref(shown.html, "Browse public datasets")).toBe("/");
    }
    const api = await send("GET", "/no-such-page");
    expect(api.status).toBe(404);
    expect(api.headers.get("content-type")).toBe("application/problem+json");
    const underApi = await send("GET", "/v1/nothing", browser);
    expect(underApi.headers.get("content-type")).toBe("application/problem+json");
  });
});
