// Field names for headers that repeat a name or leave one blank (`a,a,a`, `,,`): Frictionless
// readers refuse such a Table Schema, so the names are made unique as Frictionless names such
// columns, and every document that names fields (the schema, /rows, the Data Package,
// Croissant, schema.org, DCAT's summary) uses the same names, while the CSV keeps its header.
import { describe, expect, it } from "vitest";
import { contentSummary } from "../src/metadata/record.ts";
import { fieldNames } from "../src/schema/field-names.ts";
import { textSchema } from "../src/schema/table-schema.ts";
import { page } from "./catalog.helpers.ts";
import { createDataset, expectProblem, send, write, collectionPart, csvPart } from "./helpers/http.ts";
import { CR, SC, SCHEMA, objects, one, readJsonLd } from "./helpers/json-ld.ts";
import { createKey } from "./helpers/keys.ts";
import { withFieldNames } from "../src/schema/table-schema.ts";

describe("fieldNames", () => {
  it("leaves a header of distinct, non-blank names as written", () => {
    expect(fieldNames(["city", "population", " padded "])).toEqual(["city", "population", " padded "]);
    expect(fieldNames([])).toEqual([]);
  });

  it("names repeats by their count and blanks by their column, as Frictionless does", () => {
    expect(fieldNames(["a", "a", "a"])).toEqual(["a", "a2", "a3"]);
    expect(fieldNames(["", "", ""])).toEqual(["field1", "field2", "field3"]);
    expect(fieldNames(["id", " ", "id"])).toEqual(["id", "field2", "id2"]);
  });

  it("never takes a name the header writes, and never gives one twice", () => {
    expect(fieldNames(["a", "a", "a2"])).toEqual(["a", "a3", "a2"]);
    expect(fieldNames(["", "field1"])).toEqual(["field2", "field1"]);
    expect(fieldNames(["a", "a", "a", "a3", "a2"])).toEqual(["a", "a4", "a5", "a3", "a2"]);
    for (const header of [["x", "x", "x2", "", "field4", "x"], ["", "", "field1", "field2"]]) {
      const names = fieldNames(header);
      expect(new Set(names).size).toBe(header.length);
      expect(names.every((n) => n.trim() !== "")).toBe(true);
    }
  });

  it("renames the fields of a schema stored with repeats, and of a version stored untyped", () => {
    const stored = { fields: [{ name: "a", type: "integer" as const }, { name: "a", type: "string" as const }], missingValues: [""] };
    expect(withFieldNames(stored).fields.map((f) => f.name)).toEqual(["a", "a2"]);
    const fine = { fields: [{ name: "a", type: "integer" as const }], missingValues: [""] };
    expect(withFieldNames(fine)).toBe(fine);
    expect(textSchema(["", ""]).fields.map((f) => f.name)).toEqual(["field1", "field2"]);
    expect(contentSummary({ rows: 1, columns: ["a", "a", ""] })).toBe("1 row of CSV in 3 columns: a, a2, field3.");
  });
});

describe("a version whose header repeats and leaves out names", () => {
  const CSV = "a,a,,a2\n1,x,2024-01-01,1.5\n2,y,2024-01-02,2\n";
  const NAMES = ["a", "a3", "field3", "a2"];

  it("names its fields uniquely in the schema, /rows, the Data Package, Croissant and schema.org; the CSV is as uploaded", async () => {
    const key = await createKey("names-team", "nan");
    const schema = { fields: [{ name: "a3", type: "string" }, { name: "field3", type: "date" }] };
    const d = await createDataset(key, CSV, { name: "Repeated names", visibility: "public", schema }, "names.csv");
    const base = `/v1/dataset/${d.id}/${d.version}`;

    const tableSchema = (await (await send("GET", `${base}/schema`)).json()) as { fields: Array<{ name: string; type: string }> };
    expect(tableSchema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(["a:integer", "a3:string", "field3:date", "a2:number"]);

    const rows = (await (await send("GET", `${base}/rows`)).json()) as { columns: string[]; schema: unknown; rows: unknown[][] };
    expect(rows.columns).toEqual(["a", "a", "", "a2"]);
    expect(rows.schema).toEqual(tableSchema);
    expect(rows.rows[0]).toEqual([1, "x", "2024-01-01", 1.5]);

    const pkg = (await (await send("GET", `${base}/datapackage.json`)).json()) as { resources: Array<{ schema: unknown }> };
    expect(pkg.resources[0]!.schema).toEqual(tableSchema);

    const crJson = await (await send("GET", `${base}/croissant.jsonld`)).json();
    const graph = await readJsonLd(crJson, `https://pubset.test${base}/croissant.jsonld`);
    const fields = graph.ofType(`${CR}Field`);
    expect(fields.map((f) => one(f, `${SC}name`)).sort()).toEqual([...NAMES].sort());

    const shown = await page(`/datasets/${d.id}`);
    const block = [...shown.html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)][0]![1]!;
    const ld = await readJsonLd(JSON.parse(block));
    const dataset = ld.node(`https://pubset.test/datasets/${d.id}`);
    expect(objects(dataset, `${SCHEMA}variableMeasured`).map((id) => one(ld.node(String(id)), `${SCHEMA}name`))).toEqual(NAMES);

    expect(await (await send("GET", `${base}/names.csv`)).text()).toBe(CSV);
  });

  it("a declaration names a repeated column by its field name; the written name is its first column", async () => {
    const key = await createKey("names-team", "ned");
    const first = await createDataset(key, "a,a\n1,x\n", { name: "first a", schema: { fields: [{ name: "a", type: "number" }] } });
    const typed = (await (await send("GET", `/v1/dataset/${first.id}/latest/schema`, { key })).json()) as { fields: unknown[] };
    expect(typed.fields).toEqual([{ name: "a", type: "number" }, { name: "a2", type: "string" }]);
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "gone", schema: { fields: [{ name: "a4", type: "string" }] } }), csvPart("a,a\n1,2\n")]);
    await expectProblem(response, 422, "invalid_schema");
  });
});
