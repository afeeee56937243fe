// docs/column-types.md through the write paths: inferred schemas, declared types refused with row and column
// before anything is committed, appends held to the stored schema, a schema-only PUT that
// re-types the stored content without writing to R2, and declarations kept across replacements.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { getLatestState } from "../src/storage/datasets-db.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";
import { contentObjectCount, signedFetch, wrapBinding } from "./helpers/storage.ts";

interface RowsBody {
  schema: { fields: { name: string; type: string }[]; missingValues: string[] };
  rows: unknown[][];
}

async function rowsOf(id: string, key: TestKey, version = "latest"): Promise<RowsBody> {
  const response = await send("GET", `/v1/dataset/${id}/${version}/rows`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as RowsBody;
}

const typesOf = (body: RowsBody) => body.schema.fields.map((f) => `${f.name}:${f.type}`);

async function objectCount(): Promise<number> {
  return (await contentObjectCount());
}

async function latestVersion(id: string): Promise<string> {
  return (await getLatestState(env.DB, id))!.version.id;
}

const putSchema = (key: TestKey, id: string, schema: unknown) => write("PUT", `/v1/dataset/${id}`, key, [collectionPart({ schema })]);

describe("column types on write", () => {
  it("create infers every column over every row; /rows answers typed cells", async () => {
    const key = await createKey("types-team", "ann");
    const created = await createDataset(key, "id,zip,price,ok,day,note\n1,01234,1.5,true,2024-01-01,x\n2,99999,,FALSE,2024-02-29,\n");
    const body = await rowsOf(created.id, key);
    expect(typesOf(body)).toEqual(["id:integer", "zip:string", "price:number", "ok:boolean", "day:date", "note:string"]);
    expect(body.rows).toEqual([
      [1, "01234", 1.5, true, "2024-01-01", "x"],
      [2, "99999", null, false, "2024-02-29", null],
    ]);
  });

  it("a schema is stored once for all the versions and datasets that have it", async () => {
    const key = await createKey("types-team", "bea");
    const csv = "alpha_once,beta_once\n1,x\n";
    const a = await createDataset(key, csv);
    const b = await createDataset(key, csv);
    expect((await appendRows(key, a.id, "2,y\n")).status).toBe(201);
    const ids = await env.DB.prepare("SELECT DISTINCT schema_id FROM versions WHERE dataset_id IN (?, ?)").bind(a.id, b.id).all<{ schema_id: string }>();
    expect(ids.results).toHaveLength(1);
    expect(ids.results[0]!.schema_id).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it("declared types are used as given: decimal commas, group characters, boolean words, missing values", async () => {
    const key = await createKey("types-team", "cat");
    const schema = {
      fields: [
        { name: "amount", type: "number", decimalChar: ",", groupChar: "." },
        { name: "active", type: "boolean", trueValues: ["yes"], falseValues: ["no"] },
      ],
      missingValues: ["", "NA"],
    };
    const created = await createDataset(key, 'amount,active,count\n"1.234,5",yes,7\nNA,no,NA\n', { name: "declared", schema });
    const body = await rowsOf(created.id, key);
    expect(body.schema).toEqual({ fields: [...schema.fields, { name: "count", type: "integer" }], missingValues: ["", "NA"] });
    expect(body.rows).toEqual([[1234.5, true, 7], [null, false, null]]);
  });

  it("a cell that breaks a declared type: 422 schema_mismatch with row, column, value, expected; nothing stored", async () => {
    const key = await createKey("types-team", "dan");
    const before = await objectCount();
    const schema = { fields: [{ name: "n", type: "integer" }] };
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "bad", schema }), csvPart("k,n\na,1\nb,2\nc,2.5\n")]);
    const problem = await expectProblem(response, 422, "schema_mismatch");
    expect(problem).toMatchObject({ row: 4, column: "n", value: "2.5", expected: "integer" });
    expect(String(problem.detail)).toContain('"type":"number"');
    expect(await objectCount()).toBe(before);
    const listed = await env.DB.prepare("SELECT COUNT(*) AS n FROM datasets WHERE name = 'bad' AND team_id = ?").bind(key.team).first<{ n: number }>();
    expect(listed!.n).toBe(0);
  });

  it("a declared integer takes leading zeros as Frictionless does: /rows answers 01234 as 1234", async () => {
    const key = await createKey("types-team", "lou");
    const schema = { fields: [{ name: "zip", type: "integer" }] };
    const created = await createDataset(key, "zip,code\n01234,01234\n-007,2\n+12,3\n", { name: "padded", schema });
    const body = await rowsOf(created.id, key);
    expect(typesOf(body)).toEqual(["zip:integer", "code:string"]);
    expect(body.rows).toEqual([[1234, "01234"], [-7, "2"], [12, "3"]]);
    // A schema-only PUT re-types stored zeros the same way.
    const inferred = await createDataset(key, "code\n12\n007\n");
    expect((await putSchema(key, inferred.id, { fields: [{ name: "code", type: "integer" }] })).status).toBe(200);
    expect((await rowsOf(inferred.id, key)).rows).toEqual([[12], [7]]);
  });

  it("a declared date or datetime in a strptime pattern: /rows answers ISO 8601; a cell off the pattern is schema_mismatch", async () => {
    const key = await createKey("types-team", "pat");
    const schema = {
      fields: [
        { name: "day", type: "date", format: "%b %d %Y" },
        { name: "at", type: "datetime", format: "%Y/%m/%d %H:%M:%S" },
      ],
    };
    const created = await createDataset(key, "day,at,clock\nJan 1 2000,2015/01/01 01:00:00,1:05 PM\nDec 31 1999,1999/12/31 23:59:59,12:00 AM\n", {
      name: "patterns",
      schema: { fields: [...schema.fields, { name: "clock", type: "time", format: "%I:%M %p" }] },
    });
    const body = await rowsOf(created.id, key);
    expect(body.schema.fields).toEqual([...schema.fields, { name: "clock", type: "time", format: "%I:%M %p" }]);
    expect(body.rows).toEqual([["2000-01-01", "2015-01-01T01:00:00", "13:05:00"], ["1999-12-31", "1999-12-31T23:59:59", "00:00:00"]]);
    const before = await objectCount();
    const broken = await write("POST", "/v1/dataset", key, [collectionPart({ name: "off", schema }), csvPart("day,at\nJan 1 2000,2015/01/01 01:00:00\n2000-01-02,2015/01/01 01:00:00\n")]);
    expect(await expectProblem(broken, 422, "schema_mismatch")).toMatchObject({ row: 3, column: "day", value: "2000-01-02", expected: "date (%b %d %Y)" });
    expect(await objectCount()).toBe(before);
  });

  it.each([
    ["an unknown directive", { name: "a", type: "date", format: "%Q-%m" }],
    ["a directive twice", { name: "a", type: "date", format: "%Y %Y" }],
    ["a pattern on an integer", { name: "a", type: "integer", format: "%Y" }],
  ])("a pattern format with %s → 422 invalid_schema, nothing stored", async (_label, field) => {
    const key = await createKey("types-team", "pam");
    const before = await objectCount();
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "bad pattern", schema: { fields: [field] } }), csvPart("a\n2000\n")]);
    await expectProblem(response, 422, "invalid_schema");
    expect(await objectCount()).toBe(before);
  });

  it("a required cell holding a declared missing value: schema_mismatch names the cell as written", async () => {
    const key = await createKey("types-team", "ned");
    const schema = { fields: [{ name: "n", type: "integer", constraints: { required: true } }], missingValues: ["", "NA"] };
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "required", schema }), csvPart("n\n1\nNA\n")]);
    expect(await expectProblem(response, 422, "schema_mismatch")).toMatchObject({ row: 3, column: "n", value: "NA", expected: "integer (required)" });
  });

  it("the declaration is checked when the collection part comes after the content", async () => {
    const key = await createKey("types-team", "eve");
    const schema = { fields: [{ name: "n", type: "integer" }] };
    const late = await write("POST", "/v1/dataset", key, [csvPart("n\n1\nx\n"), collectionPart({ name: "late", schema })]);
    expect(await expectProblem(late, 422, "schema_mismatch")).toMatchObject({ row: 3, column: "n", value: "x" });
    const fine = await write("POST", "/v1/dataset", key, [csvPart("n\n1\n02\n"), collectionPart({ name: "late", schema: { fields: [{ name: "n", type: "string" }] } })]);
    expect(fine.status).toBe(201);
    const id = ((await fine.json()) as { id: string }).id;
    expect((await rowsOf(id, key)).rows).toEqual([["1"], ["02"]]);
  });

  it.each([
    ["a field not in the header", { fields: [{ name: "nope", type: "integer" }] }],
    ["decimalChar on a text field", { fields: [{ name: "a", type: "string", decimalChar: "," }] }],
    ["an unknown type", { fields: [{ name: "a", type: "decimal" }] }],
    ["a field declared twice", { fields: [{ name: "a", type: "string" }, { name: "a", type: "integer" }] }],
  ])("%s → 422 invalid_schema, nothing stored", async (_label, schema) => {
    const key = await createKey("types-team", "fay");
    const before = await objectCount();
    const response = await write("POST", "/v1/dataset", key, [collectionPart({ name: "invalid", schema }), csvPart("a\n1\n")]);
    await expectProblem(response, 422, "invalid_schema");
    expect(await objectCount()).toBe(before);
  });

  it("an append is held to the stored schema; the error names the PUT that widens it", async () => {
    const key = await createKey("types-team", "gus");
    const created = await createDataset(key, "n,s\n1,a\n");
    const before = await objectCount();
    const problem = await expectProblem(await appendRows(key, created.id, "2,b\n2.5,c\n"), 422, "schema_mismatch");
    expect(problem).toMatchObject({ row: 2, column: "n", value: "2.5", expected: "integer" });
    expect(String(problem.detail)).toContain(`PUT /v1/dataset/${created.id}`);
    expect(await objectCount()).toBe(before);
    expect(await latestVersion(created.id)).toBe(created.version);
    // Anything fits a text column; a missing cell fits any column.
    expect((await appendRows(key, created.id, ",anything 1.5\n")).status).toBe(201);
    const withSchema = await write("POST", `/v1/dataset/${created.id}`, key, [collectionPart({ schema: { fields: [] } }), csvPart("3,c\n")]);
    await expectProblem(withSchema, 400, "invalid_request");
  });

  it("a PUT with only a schema re-types the stored content: same bytes, no R2 write, appends then fit", async () => {
    const key = await createKey("types-team", "hal");
    const created = await createDataset(key, "n,s\n1,a\n2,b\n");
    expect((await appendRows(key, created.id, "3,c\n")).status).toBe(201);
    const parent = await latestVersion(created.id);
    const writes: string[] = [];
    const bucket = wrapBinding(env.CONTENT, {
      put: (...args: Parameters<R2Bucket["put"]>) => (writes.push(`put ${args[0]}`), env.CONTENT.put(...args)),
      createMultipartUpload: (...args: Parameters<R2Bucket["createMultipartUpload"]>) => (writes.push(`multipart ${args[0]}`), env.CONTENT.createMultipartUpload(...args)),
    });
    const response = await signedFetch({ ...env, CONTENT: bucket }, "PUT", `/v1/dataset/${created.id}`, key, {
      parts: [collectionPart({ schema: { fields: [{ name: "n", type: "number" }] } })],
    });
    expect(response.status).toBe(200);
    expect(writes).toEqual([]);
    const retyped = await latestVersion(created.id);
    expect(retyped).not.toBe(parent);
    const gz = async (version: string) => new Uint8Array(await (await send("GET", `/v1/dataset/${created.id}/${version}/data.csv.gz`, { key })).arrayBuffer());
    expect(await gz(retyped)).toEqual(await gz(parent));
    expect(typesOf(await rowsOf(created.id, key))).toEqual(["n:number", "s:string"]);
    expect((await appendRows(key, created.id, "2.5,d\n")).status).toBe(201);
    expect((await rowsOf(created.id, key)).rows.at(-1)).toEqual([2.5, "d"]);
  });

  it("a schema-only PUT whose stored content cannot be read: 503 with Retry-After, no version", async () => {
    const key = await createKey("types-team", "ivy");
    const created = await createDataset(key, "n\n1\n");
    const bucket = wrapBinding(env.CONTENT, { get: () => Promise.reject(new Error("injected: R2 unreachable")) });
    const response = await signedFetch({ ...env, CONTENT: bucket }, "PUT", `/v1/dataset/${created.id}`, key, {
      parts: [collectionPart({ schema: { fields: [{ name: "n", type: "number" }] } })],
    });
    expect(response.headers.get("retry-after")).toBe("1");
    await expectProblem(response, 503, "service_unavailable");
    expect(await latestVersion(created.id)).toBe(created.version);
  });

  it("a schema-only PUT that a stored row breaks is refused with that row; no version", async () => {
    const key = await createKey("types-team", "ida");
    const created = await createDataset(key, "code\n12\n007x\n");
    const problem = await expectProblem(await putSchema(key, created.id, { fields: [{ name: "code", type: "integer" }] }), 422, "schema_mismatch");
    expect(problem).toMatchObject({ row: 3, column: "code", value: "007x", expected: "integer" });
    expect(await latestVersion(created.id)).toBe(created.version);
  });

  it("a replacement keeps the publisher's declaration for the columns it still has; an empty one clears it", async () => {
    const key = await createKey("types-team", "jo");
    const schema = { fields: [{ name: "v", type: "number", decimalChar: "," }, { name: "gone", type: "string" }] };
    const created = await createDataset(key, 'v,gone\n"1,5",x\n', { name: "carry", schema });
    const replaced = await write("PUT", `/v1/dataset/${created.id}`, key, [csvPart('v,other\n"2,5",7\n')]);
    expect(replaced.status).toBe(200);
    const body = await rowsOf(created.id, key);
    expect(body.schema.fields).toEqual([{ name: "v", type: "number", decimalChar: "," }, { name: "other", type: "integer" }]);
    expect(body.rows).toEqual([[2.5, 7]]);
    expect((await putSchema(key, created.id, { fields: [] })).status).toBe(200);
    expect(typesOf(await rowsOf(created.id, key))).toEqual(["v:string", "other:integer"]);
  });

  it("a metadata-only PUT keeps the schema", async () => {
    const key = await createKey("types-team", "kim");
    const created = await createDataset(key, "n\n1\n");
    expect((await write("PUT", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "renamed" })])).status).toBe(200);
    expect(typesOf(await rowsOf(created.id, key))).toEqual(["n:integer"]);
  });
});
