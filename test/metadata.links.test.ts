// How a download leads to its metadata (docs/catalog.md#catalog-metadata): `Link: rel="describedby"` on every download
// names the version's Data Package, and no stored file name can take the path of a document.
import { describe, expect, it, beforeAll } from "vitest";
import { sanitizeFileName } from "../src/write/file-name.ts";
import { appendRows, createDataset, download, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let key: TestKey;

beforeAll(async () => {
  key = await createKey("links-team", "links-owner");
});

function describedBy(response: Response): string | null {
  const link = response.headers.get("link") ?? "";
  const match = /<([^>]+)>;\s*rel="describedby";\s*type="application\/json"/.exec(link);
  return match?.[1] ?? null;
}

describe("Link: rel=describedby on downloads", () => {
  it("names the Data Package of the version downloaded, for latest too, plain, gzip-encoded, ranged and .gz", async () => {
    const d = await createDataset(key, "a,b\n1,2\n", { name: "Links", visibility: "public" }, "links.csv");
    const appended = await appendRows(key, d.id, "3,4\n");
    const latest = ((await appended.json()) as { version: string }).version;
    const expected = (version: string) => `/v1/dataset/${d.id}/${version}/datapackage.json`;
    expect(describedBy(await download(`/v1/dataset/${d.id}/${d.version}/links.csv`))).toBe(expected(d.version));
    // `latest` resolves to a version id: the link names the exact version whose bytes came back.
    expect(describedBy(await download(`/v1/dataset/${d.id}/latest/links.csv`))).toBe(expected(latest));
    const gzipEncoded = await send("GET", `/v1/dataset/${d.id}/latest/links.csv`, { headers: { "Accept-Encoding": "gzip" } });
    expect(describedBy(gzipEncoded)).toBe(expected(latest));
    const ranged = await send("GET", `/v1/dataset/${d.id}/latest/links.csv`, { headers: { Range: "bytes=0-2" } });
    expect(ranged.status).toBe(206);
    expect(describedBy(ranged)).toBe(expected(latest));
    expect(describedBy(await download(`/v1/dataset/${d.id}/latest/links.csv.gz`))).toBe(expected(latest));
    // Signed reads of the team get it too.
    expect(describedBy(await download(`/v1/dataset/${d.id}/latest/links.csv`, key))).toBe(expected(latest));
  });

  it("leads to a Data Package whose resource is the very file downloaded", async () => {
    const csv = "a,b\n1,2\n";
    const d = await createDataset(key, csv, { name: "Links round trip", visibility: "public" }, "round.csv");
    const downloadUrl = `https://pubset.test/v1/dataset/${d.id}/${d.version}/round.csv`;
    const downloaded = await send("GET", downloadUrl);
    const target = new URL(describedBy(downloaded)!, downloadUrl).href;
    const pkg = (await (await send("GET", target)).json()) as { resources: Array<{ path: string; bytes: number }> };
    expect(pkg.resources[0]?.path).toBe(downloadUrl);
    expect(pkg.resources[0]?.bytes).toBe(new TextEncoder().encode(await downloaded.text()).length);
  });

  it("is readable by a browser script (CORS exposes Link)", async () => {
    const d = await createDataset(key, "a\n1\n", { name: "Links cors", visibility: "public" }, "c.csv");
    const response = await send("GET", `/v1/dataset/${d.id}/latest/c.csv`, { headers: { Origin: "https://elsewhere.example" } });
    expect(response.headers.get("access-control-expose-headers")?.split(/,\s*/)).toContain("Link");
  });
});

describe("stored file names never shadow a version's documents", () => {
  it("stores a reserved name with .csv added, and downloads it under that name", async () => {
    for (const reserved of ["datapackage.json", "croissant.jsonld"]) {
      const d = await createDataset(key, "a\n1\n", { name: `Reserved ${reserved}`, visibility: "public" }, reserved);
      expect(d.source).toBe(`/v1/dataset/${d.id}/${d.version}/${reserved}.csv.gz`);
      const csv = await download(`/v1/dataset/${d.id}/${d.version}/${reserved}.csv`);
      expect(csv.status).toBe(200);
      expect(await csv.text()).toBe("a\n1\n");
    }
  });

  it("keeps every other name as docs/api.md#writes stores it", () => {
    expect(sanitizeFileName("schema", false)).toBe("schema.csv");
    // `rows.csv` is the query export's path (docs/api.md#querying-rows): neither `rows` nor `rows.csv` may take it.
    expect(sanitizeFileName("rows", false)).toBe("rows.csv.csv");
    expect(sanitizeFileName("rows.csv", false)).toBe("rows.csv.csv");
    expect(sanitizeFileName("rows.csv.gz", true)).toBe("rows.csv.csv");
    expect(sanitizeFileName("datapackage.json", false)).toBe("datapackage.json.csv");
    expect(sanitizeFileName("croissant.jsonld.gz", true)).toBe("croissant.jsonld.csv");
    expect(sanitizeFileName("DataPackage.json", false)).toBe("DataPackage.json");
    expect(sanitizeFileName("my.datapackage.json", false)).toBe("my.datapackage.json");
  });
});
