// The four metadata builders (src/metadata/) on Table Schema values, read as harvesters read
// them: JSON-LD expanded and flattened by jsonld.js offline (the graph, not the text), and the
// Data Package walked as a Frictionless reader does.
import { describe, expect, it } from "vitest";
import { croissant } from "../src/metadata/croissant.ts";
import { dataPackage, packageName } from "../src/metadata/datapackage.ts";
import { dcatCatalogPage } from "../src/metadata/dcat.ts";
import { licenseOf, recordTerms, type MetadataRecord } from "../src/metadata/record.ts";
import { jsonForScript, schemaOrgDataset } from "../src/metadata/schema-org.ts";
import { versionUrls } from "../src/metadata/urls.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { CR, DCAT, DCT, FOAF, HYDRA, SC, SCHEMA, VCARD, XSD, datatype, objects, one, readJsonLd, requestedUrls } from "./helpers/json-ld.ts";
import { withFieldNames } from "../src/schema/table-schema.ts";

const ORIGIN = "https://data.example.org";
const ID = "5b1c3f0e-8f5a-4c8e-9a57-2a8d7f0c1e42";
const VERSION = "0e6f1a52-3c1d-4b7e-8f00-9a1b2c3d4e5f";

const record: MetadataRecord = {
  id: ID,
  team: "city-team",
  owner: "ada",
  issued: "2026-11-01T09:00:00.000Z",
  version: VERSION,
  created: "2026-11-22T10:00:00.000Z",
  name: "Cities of Europe",
  properties: { description: "Population by city.", key_words: ["geo", " urban "], contact_name: "Ada Lovelace", license: "CC-BY-4.0" },
  fileName: "cities.csv",
  columns: ["city", "population", "area", "capital", "founded", "updated", "price", "zip"],
  rows: 3,
  csvBytes: 211,
  gzipBytes: 160,
  eol: "\r\n",
};

const schema: TableSchema = {
  fields: [
    { name: "city", type: "string" },
    { name: "population", type: "integer" },
    { name: "area", type: "number" },
    { name: "capital", type: "boolean" },
    { name: "founded", type: "date" },
    { name: "updated", type: "datetime", format: "any" },
    { name: "price", type: "number", decimalChar: ",", groupChar: "." },
    { name: "zip", type: "string" },
  ],
  missingValues: ["", "NA"],
};

const urls = versionUrls(ORIGIN, record);
const BASE = `${ORIGIN}/v1/dataset/${ID}/${VERSION}`;

describe("the shared record mapping", () => {
  it("maps name, properties, team, version and dates the same way for every document", () => {
    const terms = recordTerms(record);
    expect(terms).toMatchObject({
      identifier: ID,
      title: "Cities of Europe",
      description: "Population by city.",
      keywords: ["geo", "urban"],
      contactPoint: "Ada Lovelace",
      license: { spdx: "CC-BY-4.0", url: "https://spdx.org/licenses/CC-BY-4.0.html" },
      publisher: "city-team",
      version: VERSION,
      modified: "2026-11-22T10:00:00.000Z",
      issued: "2026-11-01T09:00:00.000Z",
    });
  });

  it("reads a licence URL as given and ignores what is neither a URL nor an SPDX id", () => {
    expect(licenseOf("https://example.org/licence")).toEqual({ spdx: null, url: "https://example.org/licence" });
    expect(licenseOf("MIT OR Apache-2.0")).toBeNull();
    expect(licenseOf(42)).toBeNull();
    expect(licenseOf("javascript:alert(1)")).toBeNull();
  });

  it("without a description, says what the content is rather than nothing", () => {
    const terms = recordTerms({ ...record, properties: {} });
    expect(terms.description).toBeNull();
    expect(terms.summary).toBe("3 rows of CSV in 8 columns: city, population, area, capital, founded, updated, price, zip.");
    expect(terms.keywords).toEqual([]);
    expect(terms.license).toBeNull();
  });
});

describe("datapackage.json", () => {
  it("is a tabular Data Package whose first resource is the version's CSV, with dialect and schema, and second its Parquet", () => {
    const pkg = JSON.parse(JSON.stringify(dataPackage(record, schema, urls))) as Record<string, unknown> & { resources: Array<Record<string, unknown>> };
    expect(pkg.profile).toBe("tabular-data-package");
    expect(pkg.name).toMatch(/^[a-z0-9._-]+$/);
    expect(pkg).toMatchObject({ id: ID, title: "Cities of Europe", description: "Population by city.", version: VERSION, created: record.created });
    expect(pkg.keywords).toEqual(["geo", "urban"]);
    expect(pkg.licenses).toEqual([{ name: "CC-BY-4.0", path: "https://spdx.org/licenses/CC-BY-4.0.html" }]);
    expect(pkg.contributors).toEqual([
      { title: "city-team", role: "publisher", path: `${ORIGIN}/?team=city-team` },
      { title: "Ada Lovelace", role: "maintainer" },
    ]);
    expect(pkg.resources).toHaveLength(2);
    const [resource, parquet] = pkg.resources;
    // The same rows as Parquet, second, so a reader that takes the first table gets the CSV.
    expect(parquet).toMatchObject({ profile: "tabular-data-resource", name: "cities-parquet", path: `${BASE}/cities.parquet`, format: "parquet", mediatype: "application/vnd.apache.parquet" });
    expect(parquet?.schema).toEqual(schema);
    // A Frictionless reader resolves `path` against the descriptor; an absolute URL stands alone.
    expect(new URL(String(resource?.path), `${BASE}/datapackage.json`).href).toBe(`${BASE}/cities.csv`);
    expect(resource).toMatchObject({ profile: "tabular-data-resource", format: "csv", mediatype: "text/csv", encoding: "utf-8", bytes: 211 });
    expect(resource?.dialect).toEqual({ delimiter: ",", lineTerminator: "\r\n", quoteChar: '"', doubleQuote: true, skipInitialSpace: false, header: true });
    expect(resource?.schema).toEqual(schema);
  });

  it("names the package and resource as Data Package names must be", () => {
    expect(packageName("Cities of Europe (2026)!", "x")).toBe("cities-of-europe-2026");
    expect(packageName("Ünïcode", "fallback")).toBe("n-code");
    expect(packageName("???", "fallback")).toBe("fallback");
  });
});

describe("croissant.jsonld", () => {
  it("reads offline as a Croissant 1.1 Dataset with a CSV, a gzip and a Parquet FileObject", async () => {
    requestedUrls.length = 0;
    const doc = croissant(record, schema, urls);
    const graph = await readJsonLd(doc, `${BASE}/croissant.jsonld`);
    expect(requestedUrls).toEqual([]);
    const [dataset] = graph.ofType(`${SC}Dataset`);
    expect(dataset).toBeDefined();
    expect(one(dataset!, `${DCT}conformsTo`)).toBe("http://mlcommons.org/croissant/1.1");
    expect(one(dataset!, `${SC}name`)).toBe("Cities of Europe");
    expect(one(dataset!, `${SC}version`)).toBe(VERSION);
    expect(one(dataset!, `${SC}url`)).toBe(urls.page);
    expect(one(dataset!, `${SC}license`)).toBe("https://spdx.org/licenses/CC-BY-4.0.html");
    expect(objects(dataset!, `${SC}keywords`).sort()).toEqual(["geo", "urban"]);
    const files = graph.ofType(`${CR}FileObject`);
    expect(files.map((f) => [f["@id"], one(f, `${SC}contentUrl`), one(f, `${SC}encodingFormat`)]).sort()).toEqual([
      [`${BASE}/cities.csv`, `${BASE}/cities.csv`, "text/csv"],
      [`${BASE}/cities.csv.gz`, `${BASE}/cities.csv.gz`, "application/gzip"],
      [`${BASE}/cities.parquet`, `${BASE}/cities.parquet`, "application/vnd.apache.parquet"],
    ]);
    expect(objects(dataset!, `${SC}distribution`).sort()).toEqual([`${BASE}/cities.csv`, `${BASE}/cities.csv.gz`, `${BASE}/cities.parquet`]);
  });

  it("has one RecordSet whose fields mirror the schema, each read from the CSV's column", async () => {
    const graph = await readJsonLd(croissant(record, schema, urls), `${BASE}/croissant.jsonld`);
    const [recordSet] = graph.ofType(`${CR}RecordSet`);
    const fields = objects(recordSet!, `${CR}field`).map((id) => graph.node(String(id)));
    const expected = [
      ["city", `${SC}Text`],
      ["population", `${SC}Integer`],
      ["area", `${SC}Float`],
      ["capital", `${SC}Boolean`],
      ["founded", `${SC}Date`],
      ["updated", `${SC}DateTime`],
      // Croissant has no decimal comma: offered as text a loader can always read.
      ["price", `${SC}Text`],
      ["zip", `${SC}Text`],
    ];
    expect(fields.map((f) => [one(f, `${SC}name`), one(f, `${CR}dataType`)])).toEqual(expected);
    for (const field of fields) {
      const source = graph.node(String(one(field, `${CR}source`)));
      expect(one(source, `${CR}fileObject`)).toBe(`${BASE}/cities.csv`);
      const extract = graph.node(String(one(source, `${CR}extract`)));
      expect(one(extract, `${CR}column`)).toBe(one(field, `${SC}name`));
    }
  });

  it("gives a date read by a strptime pattern that pattern as its source's cr:format; a time is sc:Time", async () => {
    const dated: TableSchema = { fields: [{ name: "day", type: "date", format: "%d/%m/%Y" }, { name: "at", type: "datetime", format: "any" }], missingValues: [""] };
    const graph = await readJsonLd(croissant({ ...record, columns: ["day", "at"] }, dated, urls), `${BASE}/croissant.jsonld`);
    const formats = Object.fromEntries(
      graph.ofType(`${CR}Field`).map((f) => [one(f, `${SC}name`), objects(graph.node(String(one(f, `${CR}source`))), `${CR}format`)]),
    );
    expect(formats).toEqual({ day: ["%d/%m/%Y"], at: [] });
    const timed: TableSchema = { fields: [{ name: "clock", type: "time" }], missingValues: [""] };
    const timeGraph = await readJsonLd(croissant({ ...record, columns: ["clock"] }, timed, urls), `${BASE}/croissant.jsonld`);
    expect(timeGraph.ofType(`${CR}Field`).map((f) => one(f, `${CR}dataType`))).toEqual([`${SC}Time`]);
  });

  it("keeps two columns of the same header name apart, by their field names", async () => {
    const twin: TableSchema = withFieldNames({ fields: [{ name: "a", type: "integer" }, { name: "a", type: "string" }], missingValues: [""] });
    const graph = await readJsonLd(croissant({ ...record, columns: ["a", "a"] }, twin, urls), `${BASE}/croissant.jsonld`);
    expect(graph.ofType(`${CR}Field`).map((f) => one(f, `${SC}name`)).sort()).toEqual(["a", "a2"]);
  });
});

describe("catalog.jsonld page", () => {
  const page = (nextUrl: string | null) =>
    dcatCatalogPage({
      origin: ORIGIN,
      catalogUrl: `${ORIGIN}/catalog.jsonld`,
      pageUrl: `${ORIGIN}/catalog.jsonld`,
      firstUrl: `${ORIGIN}/catalog.jsonld`,
      nextUrl,
      entries: [{ record, versions: [{ id: VERSION, created: record.created }, { id: "older-version", created: record.issued }] }],
    });

  it("reads offline as a dcat:Catalog of dcat:Datasets with CSV, gzip and Parquet distributions", async () => {
    requestedUrls.length = 0;
    const graph = await readJsonLd(page(null));
    expect(requestedUrls).toEqual([]);
    const catalog = graph.node(`${ORIGIN}/catalog.jsonld`);
    expect(catalog["@type"]).toEqual(expect.arrayContaining([`${DCAT}Catalog`, `${HYDRA}Collection`]));
    const datasetId = `${ORIGIN}/v1/dataset/${ID}`;
    expect(objects(catalog, `${DCAT}dataset`)).toEqual([datasetId]);
    const dataset = graph.node(datasetId);
    expect(dataset["@type"]).toEqual([`${DCAT}Dataset`]);
    expect(one(dataset, `${DCT}identifier`)).toBe(ID);
    expect(one(dataset, `${DCT}title`)).toBe("Cities of Europe");
    expect(one(dataset, `${DCT}description`)).toBe("Population by city.");
    expect(objects(dataset, `${DCAT}keyword`).sort()).toEqual(["geo", "urban"]);
    expect(one(dataset, `${DCAT}version`)).toBe(VERSION);
    expect(one(dataset, `${DCT}modified`)).toBe(record.created);
    expect(datatype(dataset, `${DCT}modified`)).toBe(`${XSD}dateTime`);
    expect(one(dataset, `${DCAT}landingPage`)).toBe(urls.page);
    const publisher = graph.node(String(one(dataset, `${DCT}publisher`)));
    expect(publisher["@type"]).toEqual([`${FOAF}Agent`]);
    expect(one(publisher, `${FOAF}name`)).toBe("city-team");
    const contact = graph.node(String(one(dataset, `${DCAT}contactPoint`)));
    expect(one(contact, `${VCARD}fn`)).toBe("Ada Lovelace");
    expect(objects(dataset, `${DCAT}hasVersion`)).toEqual([`${ORIGIN}/v1/dataset/${ID}/${VERSION}`, `${ORIGIN}/v1/dataset/${ID}/older-version`]);
    const all = objects(dataset, `${DCAT}distribution`).map((id) => graph.node(String(id)));
    const [parquet] = all.filter((d) => one(d, `${DCAT}downloadURL`) === `${BASE}/cities.parquet`);
    // The Parquet twin is built after the commit: named with its media type, without a size.
    expect(one(parquet!, `${DCAT}mediaType`)).toBe("http://www.iana.org/assignments/media-types/application/vnd.apache.parquet");
    expect(objects(parquet!, `${DCAT}byteSize`)).toEqual([]);
    const distributions = all.filter((d) => d !== parquet);
    const described = distributions.map((d) => ({
      download: one(d, `${DCAT}downloadURL`),
      mediaType: one(d, `${DCAT}mediaType`),
      compress: objects(d, `${DCAT}compressFormat`),
      bytes: one(d, `${DCAT}byteSize`),
      bytesType: datatype(d, `${DCAT}byteSize`),
      license: one(d, `${DCT}license`),
    }));
    expect(described).toEqual([
      { download: `${BASE}/cities.csv`, mediaType: "http://www.iana.org/assignments/media-types/text/csv", compress: [], bytes: "211", bytesType: `${XSD}nonNegativeInteger`, license: "https://spdx.org/licenses/CC-BY-4.0.html" },
      {
        download: `${BASE}/cities.csv.gz`,
        mediaType: "http://www.iana.org/assignments/media-types/text/csv",
        compress: ["http://www.iana.org/assignments/media-types/application/gzip"],
        bytes: "160",
        bytesType: `${XSD}nonNegativeInteger`,
        license: "https://spdx.org/licenses/CC-BY-4.0.html",
      },
    ]);
    // Versions are links, not datasets a harvester would import one by one.
    expect(graph.ofType(`${DCAT}Dataset`)).toHaveLength(1);
  });

  it("is a Hydra PartialCollectionView with hydra:next until the last page", async () => {
    const next = `${ORIGIN}/catalog.jsonld?cursor=abc`;
    const graph = await readJsonLd(page(next));
    const [view] = graph.ofType(`${HYDRA}PartialCollectionView`);
    expect(one(view!, `${HYDRA}next`)).toBe(next);
    expect(one(graph.node(`${ORIGIN}/catalog.jsonld`), `${HYDRA}view`)).toBe(view!["@id"]);
    const last = await readJsonLd(page(null));
    expect(objects(last.ofType(`${HYDRA}PartialCollectionView`)[0]!, `${HYDRA}next`)).toEqual([]);
  });
});

describe("the dataset page's schema.org block", () => {
  it("reads as a schema.org Dataset naming its downloads and columns", async () => {
    requestedUrls.length = 0;
    const graph = await readJsonLd(JSON.parse(jsonForScript(schemaOrgDataset(record, schema, urls))));
    expect(new Set(requestedUrls)).toEqual(new Set(["https://schema.org"]));
    const dataset = graph.node(urls.page);
    expect(dataset["@type"]).toEqual([`${SCHEMA}Dataset`]);
    expect(one(dataset, `${SCHEMA}name`)).toBe("Cities of Europe");
    expect(one(dataset, `${SCHEMA}url`)).toBe(urls.page);
    expect(one(dataset, `${SCHEMA}identifier`)).toBe(ID);
    expect(one(dataset, `${SCHEMA}version`)).toBe(VERSION);
    expect(one(dataset, `${SCHEMA}license`)).toBe("https://spdx.org/licenses/CC-BY-4.0.html");
    const downloads = objects(dataset, `${SCHEMA}distribution`).map((id) => graph.node(String(id)));
    expect(downloads.map((d) => [d["@type"], one(d, `${SCHEMA}contentUrl`), one(d, `${SCHEMA}encodingFormat`)])).toEqual([
      [[`${SCHEMA}DataDownload`], `${BASE}/cities.csv`, "text/csv"],
      [[`${SCHEMA}DataDownload`], `${BASE}/cities.csv.gz`, "application/gzip"],
      [[`${SCHEMA}DataDownload`], `${BASE}/cities.parquet`, "application/vnd.apache.parquet"],
    ]);
    const variables = objects(dataset, `${SCHEMA}variableMeasured`).map((id) => one(graph.node(String(id)), `${SCHEMA}name`));
    expect(variables).toEqual(schema.fields.map((f) => f.name));
    const creator = graph.node(String(one(dataset, `${SCHEMA}creator`)));
    expect(one(creator, `${SCHEMA}name`)).toBe("city-team");
  });

  it("cannot end its <script> element, whatever the publisher wrote", () => {
    const hostile = { ...record, name: "</script><script>alert(1)</script>", properties: { description: "<!-- a & b --> \u2028 end" } };
    const text = jsonForScript(schemaOrgDataset(hostile, schema, urls));
    expect(text).not.toMatch(/<|>|&|\u2028/);
    const parsed = JSON.parse(text) as { name: string; description: string };
    expect(parsed.name).toBe(hostile.name);
    expect(parsed.description).toBe("<!-- a & b --> \u2028 end");
  });
});
