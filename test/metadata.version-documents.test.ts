// A version's `schema`, `datapackage.json` and `croissant.jsonld` through the worker (docs/catalog.md#catalog-metadata):
// read as a Frictionless reader and a Croissant loader would (following the URLs inside to the
// bytes), cached as B6 says, and never describing what the caller may not read.
import { beforeAll, describe, expect, it } from "vitest";
import { collectionPart, createDataset, csvPart, expectProblem, gunzipText, send, write } from "./helpers/http.ts";
import { CR, SC, objects, one, readJsonLd } from "./helpers/json-ld.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

const ORIGIN = "https://pubset.test";
const DOCUMENTS = ["schema", "datapackage.json", "croissant.jsonld"] as const;
const CSV = "city,population,area,capital,founded,zip\nOslo,709000,454.0,true,1048-01-01,0150\nBergen,291000,465.3,false,1070-01-01,5003\n";

let key: TestKey;
let teammate: TestKey;
let outsider: TestKey;
let cities: { id: string; version: string };

interface Resource {
  path: string;
  format: string;
  mediatype: string;
  encoding: string;
  bytes: number;
  dialect: { delimiter: string; lineTerminator: string; quoteChar: string; doubleQuote: boolean; header: boolean };
  schema: { fields: Array<{ name: string; type: string }>; missingValues: string[] };
}

beforeAll(async () => {
  key = await createKey("docs-team", "docs-owner");
  teammate = await createKey("docs-team", "docs-mate");
  outsider = await createKey("docs-other", "docs-outsider");
  cities = await createDataset(
    key,
    CSV,
    {
      name: "Norwegian cities",
      visibility: "public",
      properties: { description: "Two cities.", key_words: ["geo"], contact_name: "Ada", license: "CC-BY-4.0" },
    },
    "cities.csv",
  );
});

async function json(path: string, key?: TestKey) {
  const response = await send("GET", path, { key });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, body: JSON.parse(text) as Record<string, unknown> };
}

describe("GET /v1/dataset/:id/:version/schema", () => {
  it("is the version's Table Schema, the same /rows carries", async () => {
    const { response, body } = await json(`/v1/dataset/${cities.id}/${cities.version}/schema`);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect((body.fields as Array<{ name: string; type: string }>).map((f) => [f.name, f.type])).toEqual([
      ["city", "string"],
      ["population", "integer"],
      ["area", "number"],
      ["capital", "boolean"],
      ["founded", "date"],
      ["zip", "string"],
    ]);
    const rows = (await (await send("GET", `/v1/dataset/${cities.id}/${cities.version}/rows`)).json()) as { schema: unknown };
    expect(body).toEqual(rows.schema);
  });
});

describe("GET /v1/dataset/:id/:version/datapackage.json", () => {
  it("reads as a Frictionless reader does: the resource path downloads the CSV it describes", async () => {
    const { response, body } = await json(`/v1/dataset/${cities.id}/latest/datapackage.json`);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(body).toMatchObject({ profile: "tabular-data-package", id: cities.id, title: "Norwegian cities", description: "Two cities.", version: cities.version });
    expect(body.keywords).toEqual(["geo"]);
    const [resource] = body.resources as Resource[];
    const descriptorUrl = `${ORIGIN}/v1/dataset/${cities.id}/latest/datapackage.json`;
    const path = new URL(resource!.path, descriptorUrl).href;
    expect(path).toBe(`${ORIGIN}/v1/dataset/${cities.id}/${cities.version}/cities.csv`);
    expect(resource).toMatchObject({ format: "csv", mediatype: "text/csv", encoding: "utf-8" });
    const download = await send("GET", path);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(bytes.length).toBe(resource!.bytes);
    const text = new TextDecoder().decode(bytes);
    expect(text).toBe(CSV);
    // The dialect and the schema are enough to read the rows back typed.
    const [header, ...rows] = text.split(resource!.dialect.lineTerminator).filter((line) => line !== "").map((line) => line.split(resource!.dialect.delimiter));
    expect(resource!.dialect.header).toBe(true);
    expect(header).toEqual(resource!.schema.fields.map((f) => f.name));
    const population = resource!.schema.fields.findIndex((f) => f.name === "population");
    expect(resource!.schema.fields[population]?.type).toBe("integer");
    expect(rows.map((r) => Number(r[population]))).toEqual([709000, 291000]);
    const zip = resource!.schema.fields.find((f) => f.name === "zip");
    expect(zip?.type).toBe("string");
  });
});

describe("GET /v1/dataset/:id/:version/croissant.jsonld", () => {
  it("reads offline as Croissant whose FileObjects download the CSV, the gzip and the Parquet", async () => {
    const url = `${ORIGIN}/v1/dataset/${cities.id}/${cities.version}/croissant.jsonld`;
    const response = await send("GET", url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/ld+json");
    const graph = await readJsonLd(await response.json(), url);
    const [dataset] = graph.ofType(`${SC}Dataset`);
    expect(one(dataset!, `${SC}name`)).toBe("Norwegian cities");
    for (const file of graph.ofType(`${CR}FileObject`)) {
      const download = await send("GET", String(one(file, `${SC}contentUrl`)));
      if (one(file, `${SC}encodingFormat`) === "application/vnd.apache.parquet") {
        expect([200, 503]).toContain(download.status); // built after the commit
        continue;
      }
      expect(download.status).toBe(200);
      const gzip = one(file, `${SC}encodingFormat`) === "application/gzip";
      expect(gzip ? await gunzipText(download) : await download.text()).toBe(CSV);
    }
    const [recordSet] = graph.ofType(`${CR}RecordSet`);
    const fields = objects(recordSet!, `${CR}field`)
      .map((id) => graph.node(String(id)))
      .map((f) => [one(f, `${SC}name`), one(f, `${CR}dataType`)]);
    expect(fields).toEqual([
      ["city", `${SC}Text`],
      ["population", `${SC}Integer`],
      ["area", `${SC}Float`],
      ["capital", `${SC}Boolean`],
      ["founded", `${SC}Date`],
      ["zip", `${SC}Text`],
    ]);
    expect(objects(dataset!, `${SC}distribution`)).toHaveLength(3);
  });
});

describe("caching (docs/edge-and-caching.md)", () => {
  it("is immutable for a version id, a minute for latest, tagged with the dataset, and answers 304", async () => {
    for (const document of DOCUMENTS) {
      const pinned = await send("GET", `/v1/dataset/${cities.id}/${cities.version}/${document}`);
      expect(pinned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(pinned.headers.get("cache-tag")).toBe(`dataset:${cities.id}`);
      expect(pinned.headers.get("vary")).toContain("Signature");
      const latest = await send("GET", `/v1/dataset/${cities.id}/latest/${document}`);
      expect(latest.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300");
      const etag = latest.headers.get("etag");
      expect(etag).toBeTruthy();
      const again = await send("GET", `/v1/dataset/${cities.id}/latest/${document}`, { headers: { "If-None-Match": etag! } });
      expect(again.status).toBe(304);
    }
  });

  it("refuses query parameters (they would only split the cache)", async () => {
    for (const document of DOCUMENTS) await expectProblem(await send("GET", `/v1/dataset/${cities.id}/latest/${document}?x=1`), 400, "invalid_query");
  });
});

describe("visibility: 404 wherever the record is 404", () => {
  it("a private dataset is described to its team only, never cached", async () => {
    const d = await createDataset(key, "secret\nPRIVATEDOCROW\n", { name: "PRIVATEDOCNAME" });
    for (const document of DOCUMENTS) {
      for (const version of [d.version, "latest"]) {
        const path = `/v1/dataset/${d.id}/${version}/${document}`;
        await expectProblem(await send("GET", path), 404, "not_found");
        await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
        const own = await send("GET", path, { key: teammate });
        expect(own.status).toBe(200);
        expect(own.headers.get("cache-control")).toBe("private, no-store");
      }
    }
  });

  it("a draft of a public dataset is described to its team only", async () => {
    const d = await createDataset(key, "word\nDRAFTDOCROW\n", { name: "DRAFTDOCNAME" }, "early.csv");
    const published = await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ name: "Public now", visibility: "public" }), csvPart("word\npublic\n", "later.csv")]);
    expect(published.status).toBe(200);
    for (const document of DOCUMENTS) {
      const path = `/v1/dataset/${d.id}/${d.version}/${document}`;
      await expectProblem(await send("GET", path), 404, "not_found");
      await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
      expect((await send("GET", path, { key: teammate })).status).toBe(200);
      const latest = await send("GET", `/v1/dataset/${d.id}/latest/${document}`);
      expect(latest.status).toBe(200);
      const text = await latest.text();
      for (const secret of ["DRAFTDOCNAME", "early.csv", d.version]) expect(text).not.toContain(secret);
    }
  });

  it("a deleted dataset, an unknown version and a malformed id are 404 or 400 like the record", async () => {
    const d = await createDataset(key, "a\n1\n", { name: "Deleted docs", visibility: "public" });
    expect((await send("DELETE", `/v1/dataset/${d.id}`, { key })).status).toBe(204);
    for (const document of DOCUMENTS) {
      await expectProblem(await send("GET", `/v1/dataset/${d.id}/latest/${document}`), 404, "not_found");
      await expectProblem(await send("GET", `/v1/dataset/${cities.id}/5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42/${document}`), 404, "not_found");
      await expectProblem(await send("GET", `/v1/dataset/not-a-uuid/latest/${document}`), 400, "invalid_request");
    }
  });
});

describe("stored names never shadow the documents", () => {
  it("a file uploaded as datapackage.json leaves /datapackage.json to the document", async () => {
    const d = await createDataset(key, "a\n1\n", { name: "Shadow", visibility: "public" }, "datapackage.json");
    const { body } = await json(`/v1/dataset/${d.id}/${d.version}/datapackage.json`);
    const [resource] = body.resources as Resource[];
    expect(resource!.path).toBe(`${ORIGIN}/v1/dataset/${d.id}/${d.version}/datapackage.json.csv`);
    expect(await (await send("GET", resource!.path)).text()).toBe("a\n1\n");
  });
});
