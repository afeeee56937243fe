// Search finds datasets by their columns (docs/api.md#search): the latest version's column
// names, and the `title` and `description` a publisher declared for a field in its Table Schema,
// through `GET /v1/dataset?q=` and the catalog's search alike, on the visibility rules of every
// list: private datasets and drafts never show to those who may not see them.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { datasetIds, page } from "./catalog.helpers.ts";
import { appendRows, collectionPart, createDataset, csvPart, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let owner: TestKey;
let teammate: TestKey;
let outsider: TestKey;
const ids: Record<string, string> = {};

const SCHEMA = {
  fields: [
    { name: "pop", type: "integer", title: "Einwohnerzahl", description: "Residents counted at the quinquennial census" },
    { name: "place", type: "string" },
  ],
};

beforeAll(async () => {
  owner = await createKey("colsrch-team", "colsrch-owner");
  teammate = await createKey("colsrch-team", "colsrch-mate");
  outsider = await createKey("colsrch-other", "colsrch-outsider");
  const make = async (label: string, csv: string, collection: Record<string, unknown>) => {
    ids[label] = (await createDataset(owner, csv, collection)).id;
  };
  await make("postal", "zip_code,place_name\n00501,Holtsville\n", { name: "Postal places", visibility: "public" });
  // "zip" and "code" both appear, but never as the phrase zip_code.
  await make("scattered", "code,region\n1,north\n", { name: "Regions", visibility: "public", properties: { description: "Each zip of the region" } });
  await make("census", "pop,place\n512,Oerlikon\n", { name: "Census extract", visibility: "public", schema: SCHEMA });
  await make("private", "zip_code,secretcolumnxq\n1,2\n", { name: "Private postal", visibility: "private" });
  await make("drafted", "draftcolumnxq,zip_code\n1,2\n", { name: "Drafted postal", visibility: "private" });
  // Published with other columns: the version written while private stays a draft.
  const published = await write("PUT", `/v1/dataset/${ids.drafted}`, owner, [collectionPart({ visibility: "public" }), csvPart("publishedcolumnxq\n1\n")]);
  expect(published.status).toBe(200);
});

/** Signed without a team filter a search covers the key's team; with one, that team's public datasets too. */
async function search(q: string, key?: TestKey, team?: string): Promise<string[]> {
  const response = await send("GET", `/v1/dataset?${new URLSearchParams(team ? { q, team } : { q })}`, { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: { id: string }[] }).results.map((r) => r.id);
}

async function catalogSearch(q: string): Promise<string[]> {
  const shown = await page(`/?${new URLSearchParams({ q })}`);
  expect(shown.status).toBe(200);
  return datasetIds(shown.html);
}

const ours = (found: string[]) => found.filter((id) => Object.values(ids).includes(id));
const label = (found: string[]) => ours(found).map((id) => Object.keys(ids).find((k) => ids[k] === id));

describe("search by columns", () => {
  it("finds a dataset by a column name, as typed or by its words", async () => {
    expect(label(await search("zip_code"))).toEqual(["postal"]);
    expect(label(await search("place_name"))).toEqual(["postal"]);
    expect(label(await search("zip_co"))).toEqual(["postal"]);
    expect(label(await search("holtsville"))).toEqual([]);
  });

  it("keeps the words of a name together: zip_code is not zip somewhere and code elsewhere", async () => {
    expect(label(await search("zip code")).sort()).toEqual(["postal", "scattered"].sort());
    expect(label(await search("zip_code"))).not.toContain("scattered");
  });

  it("finds a field by the title and description its publisher declared", async () => {
    expect(label(await search("Einwohnerzahl"))).toEqual(["census"]);
    expect(label(await search("quinquennial census"))).toEqual(["census"]);
    expect(label(await search("einwohner"))).toEqual(["census"]);
  });

  it("never shows a private dataset's columns outside its team", async () => {
    expect(label(await search("secretcolumnxq"))).toEqual([]);
    expect(label(await search("secretcolumnxq", outsider))).toEqual([]);
    expect(label(await search("secretcolumnxq", outsider, "colsrch-team"))).toEqual([]);
    expect(label(await search("secretcolumnxq", teammate))).toEqual(["private"]);
    expect(label(await search("zip_code", outsider, "colsrch-team"))).toEqual(["postal"]);
    expect(label(await search("zip_code", owner)).sort()).toEqual(["postal", "private"].sort());
  });

  it("never shows a draft's columns: only the published latest version's are searched", async () => {
    // Its team too searches the latest version only, which is the published one.
    for (const [key, team] of [[undefined, undefined], [outsider, "colsrch-team"], [teammate, undefined]] as const) {
      expect(label(await search("draftcolumnxq", key, team))).toEqual([]);
      expect(label(await search("publishedcolumnxq", key, team))).toEqual(["drafted"]);
    }
  });

  it("answers the same through the catalog's search as through the API", async () => {
    for (const q of ["zip_code", "Einwohnerzahl", "secretcolumnxq", "draftcolumnxq", "publishedcolumnxq", "zip code"]) {
      expect(ours(await catalogSearch(q)), q).toEqual(ours(await search(q)));
    }
  });

  it("follows the columns as versions change them: replaced, retitled, appended to", async () => {
    const d = await createDataset(owner, "old_column_q,b\n1,2\n", { name: "Changing columns", visibility: "public" });
    expect(await search("old_column_q")).toContain(d.id);
    const replaced = await write("PUT", `/v1/dataset/${d.id}`, owner, [csvPart("new_column_q,b\n1,2\n")]);
    expect(replaced.status).toBe(200);
    expect(await search("old_column_q")).not.toContain(d.id);
    expect(await search("new_column_q")).toContain(d.id);

    // A schema-only PUT that gives a field a title.
    const retitled = await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ schema: { fields: [{ name: "b", type: "integer", title: "Seilbahnstationen" }] } })]);
    expect(retitled.status).toBe(200);
    expect(await search("Seilbahnstationen")).toContain(d.id);
    const untitled = await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ schema: { fields: [{ name: "b", type: "integer" }] } })]);
    expect(untitled.status).toBe(200);
    expect(await search("Seilbahnstationen")).not.toContain(d.id);

    expect((await appendRows(owner, d.id, "3,4\n")).status).toBe(201);
    expect(await search("new_column_q")).toContain(d.id);
  });

  // Last: it rebuilds the index, as migrating a database with datasets in it does.
  it("migrations/0021 fills the rebuilt index from the datasets already there", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0021_"));
    expect(migration).toBeDefined();
    await env.DB.batch(migration!.queries.map((sql) => env.DB.prepare(sql)));
    expect(label(await search("zip_code"))).toEqual(["postal"]);
    expect(label(await search("Einwohnerzahl"))).toEqual(["census"]);
    expect(label(await search("quinquennial"))).toEqual(["census"]);
    expect(label(await search("secretcolumnxq"))).toEqual([]);
    expect(label(await search("secretcolumnxq", teammate))).toEqual(["private"]);
    expect(label(await search("draftcolumnxq"))).toEqual([]);
    expect(label(await search("publishedcolumnxq"))).toEqual(["drafted"]);
    expect(label(await search("postal places"))).toEqual(["postal"]);
  });
});
