// Full-text search `GET /v1/dataset?q=` (docs/api.md): the four indexed fields of the latest
// version, accents, prefixes, bm25 ranking, the list's filters, visibility and shapes, paging,
// and user input that must never reach FTS5 as syntax.
import { beforeAll, describe, expect, it } from "vitest";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let alice: TestKey;
let bob: TestKey;
let carol: TestKey;
const ids: Record<string, string> = {};

const OWNER_SHAPE = ["id", "name", "owner", "team", "version", "visibility"];
const TEAM_SHAPE = ["created", "id", "name", "properties", "version", "visibility"];

beforeAll(async () => {
  alice = await createKey("srch-team", "srch-alice");
  bob = await createKey("srch-team", "srch-bob");
  carol = await createKey("srch-other", "srch-carol");
  const make = async (label: string, key: TestKey, collection: Record<string, unknown>) => {
    ids[label] = (await createDataset(key, "a,b\n1,2\n", collection)).id;
  };
  await make("trams", alice, {
    name: "Zürich trams",
    visibility: "public",
    properties: { description: "Stops and lines of the city network", key_words: ["transit", "rail"], contact_name: "Anna Meier" },
  });
  await make("lakes", alice, {
    name: "Lake levels",
    visibility: "public",
    properties: { description: "Water heights measured hourly", key_words: ["hydrology"], contact_name: "Bartholomew Quist", notes: "unindexedword" },
  });
  await make("gondolaName", alice, { name: "Gondola lifts", visibility: "public", properties: { description: "Cable cars" } });
  await make("gondolaDesc", bob, { name: "Mountain huts", visibility: "public", properties: { description: "Huts near each gondola station" } });
  await make("gondolaPrivate", alice, { name: "Gondola budget", visibility: "private" });
  await make("gondolaOther", carol, { name: "Gondola museum", visibility: "public" });
  await make("gondolaOtherPrivate", carol, { name: "Gondola tickets", visibility: "private" });
  await make("renamed", alice, { name: "Old harbour cranes", visibility: "public" });
  await make("hidden", alice, { name: "Lighthouse keepers", visibility: "public" });
  expect((await write("PUT", `/v1/dataset/${ids.renamed}`, alice, [collectionPart({ name: "New marina cranes" })])).status).toBe(200);
  expect((await write("PUT", `/v1/dataset/${ids.hidden}`, alice, [collectionPart({ visibility: "private" })])).status).toBe(200);
});

function url(params: Record<string, string>): string {
  return `/v1/dataset?${new URLSearchParams(params).toString()}`;
}

async function search(params: Record<string, string>, key?: TestKey) {
  const response = await send("GET", url(params), { key });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`search ${JSON.stringify(params)} → ${response.status}: ${text}`);
  const body = JSON.parse(text) as { results: Array<Record<string, unknown>> };
  return { response, body, ids: body.results.map((r) => r.id as string) };
}

const gondolas = () => [ids.gondolaName, ids.gondolaDesc, ids.gondolaPrivate, ids.gondolaOther, ids.gondolaOtherPrivate];
const onlyGondolas = (found: string[]) => found.filter((id) => gondolas().includes(id));

describe("GET /v1/dataset?q= finds", () => {
  it.each([
    ["a word of the name", "trams", "trams"],
    ["a word of the description", "hourly", "lakes"],
    ["a key word", "hydrology", "lakes"],
    ["another key word", "rail", "trams"],
    ["the contact name", "Quist", "lakes"],
    ["the contact's first name, any case", "ANNA", "trams"],
  ])("by %s (%s)", async (_label, q, label) => {
    expect((await search({ q })).ids).toContain(ids[label]);
  });

  it("not by properties outside the four fields", async () => {
    expect((await search({ q: "unindexedword" })).ids).not.toContain(ids.lakes);
  });

  it.each(["Zurich", "ZÜRICH", "zu\u0308rich", "zürich trams"])("ignoring accents and case: %s", async (q) => {
    expect((await search({ q })).ids).toContain(ids.trams);
  });

  it("by the prefix of the last word, and only the last", async () => {
    expect((await search({ q: "Zur" })).ids).toContain(ids.trams);
    expect((await search({ q: "hydro" })).ids).toContain(ids.lakes);
    expect((await search({ q: "lifts gond" })).ids).toContain(ids.gondolaName);
    expect((await search({ q: "gond lifts" })).ids).not.toContain(ids.gondolaName);
  });

  it("only datasets matching every word", async () => {
    expect(onlyGondolas((await search({ q: "gondola museum" })).ids)).toEqual([ids.gondolaOther]);
  });
});

describe("GET /v1/dataset?q= ranks and filters", () => {
  it("a name match above a description-only match, though the latter is newer", async () => {
    const plain = await search({ team: "srch-team" });
    expect(plain.ids.indexOf(ids.gondolaDesc!)).toBeLessThan(plain.ids.indexOf(ids.gondolaName!));
    expect((await search({ q: "gondola", team: "srch-team" })).ids).toEqual([ids.gondolaName, ids.gondolaDesc]);
  });

  it("combines with owner, and with team and owner", async () => {
    expect((await search({ q: "gondola", owner: "srch-bob" })).ids).toEqual([ids.gondolaDesc]);
    expect((await search({ q: "gondola", team: "srch-team", owner: "srch-alice" })).ids).toEqual([ids.gondolaName]);
    expect((await search({ q: "gondola", team: "srch-other" })).ids).toEqual([ids.gondolaOther]);
    await expectProblem(await send("GET", url({ q: "gondola", owner: "srch-carol" }), { key: alice }), 403, "forbidden");
  });

  it("keeps the list's shapes key for key, chosen by team and owner", async () => {
    const owner = await search({ q: "gondola" });
    for (const r of owner.body.results) expect(Object.keys(r).sort()).toEqual(OWNER_SHAPE);
    const team = await search({ q: "gondola", team: "srch-team" });
    for (const r of team.body.results) expect(Object.keys(r).sort()).toEqual(TEAM_SHAPE);
    const both = await search({ q: "gondola", team: "srch-team", owner: "srch-alice" });
    for (const r of both.body.results) expect(Object.keys(r).sort()).toEqual(OWNER_SHAPE);
    expect(Object.keys(team.body)).toEqual(["results"]);
    const listed = await search({ team: "srch-team" });
    expect(team.body.results[0]).toEqual(listed.body.results.find((r) => r.id === ids.gondolaName));
  });
});

describe("GET /v1/dataset?q= visibility", () => {
  it("anonymous: public datasets of every team only", async () => {
    expect(onlyGondolas((await search({ q: "gondola" })).ids).sort()).toEqual([ids.gondolaName, ids.gondolaDesc, ids.gondolaOther].sort());
  });

  it("signed: the key's team, private ones included", async () => {
    expect(onlyGondolas((await search({ q: "gondola" }, alice)).ids).sort()).toEqual([ids.gondolaName, ids.gondolaDesc, ids.gondolaPrivate].sort());
    expect(onlyGondolas((await search({ q: "gondola" }, carol)).ids).sort()).toEqual([ids.gondolaOther, ids.gondolaOtherPrivate].sort());
  });

  it("signed with another team's filter: its public datasets only", async () => {
    expect((await search({ q: "gondola", team: "srch-team" }, carol)).ids).toEqual([ids.gondolaName, ids.gondolaDesc]);
    expect((await search({ q: "gondola budget" }, carol)).ids).toEqual([]);
  });

  it("a dataset made private disappears for everyone outside its team", async () => {
    expect((await search({ q: "lighthouse" })).ids).not.toContain(ids.hidden);
    expect((await search({ q: "lighthouse" }, carol)).ids).not.toContain(ids.hidden);
    expect((await search({ q: "lighthouse" }, alice)).ids).toContain(ids.hidden);
  });

  it("a renamed dataset is found by its new name, not its old one", async () => {
    expect((await search({ q: "harbour" }, alice)).ids).not.toContain(ids.renamed);
    expect((await search({ q: "harbour" })).ids).not.toContain(ids.renamed);
    expect((await search({ q: "marina" })).ids).toContain(ids.renamed);
  });

  it("appends keep the search row; an append that renames replaces it", async () => {
    expect((await appendRows(alice, ids.renamed!, "3,4\n")).status).toBe(201);
    expect((await search({ q: "marina" })).ids).toContain(ids.renamed);
    const renaming = await write("POST", `/v1/dataset/${ids.renamed}`, alice, [collectionPart({ name: "Quay cranes" }), csvPart("5,6\n")]);
    expect(renaming.status).toBe(201);
    expect((await search({ q: "marina" })).ids).not.toContain(ids.renamed);
    expect((await search({ q: "quay" })).ids).toContain(ids.renamed);
  });
});

describe("GET /v1/dataset?q= pages", () => {
  it("follows Link rel=next through every result in rank order", async () => {
    const all = (await search({ q: "gondola" }, alice)).ids;
    const seen: string[] = [];
    let path: string | null = url({ q: "gondola", limit: "1" });
    while (path) {
      const response = await send("GET", path, { key: alice });
      expect(response.status).toBe(200);
      seen.push(...((await response.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id));
      const link = response.headers.get("link");
      path = link ? /<([^>]+)>; rel="next"/.exec(link)![1]! : null;
    }
    expect(all.length).toBe(3);
    expect(seen).toEqual(all);
  });

  it("a list cursor with q, or a search cursor without it → 400 invalid_query", async () => {
    const listPage = await send("GET", url({ team: "srch-team", limit: "1" }));
    const listCursor = new URL(/<([^>]+)>/.exec(listPage.headers.get("link")!)![1]!, "https://x").searchParams.get("cursor")!;
    await expectProblem(await send("GET", url({ q: "gondola", cursor: listCursor })), 400, "invalid_query");
    const searchPage = await send("GET", url({ q: "gondola", limit: "1" }));
    const searchCursor = new URL(/<([^>]+)>/.exec(searchPage.headers.get("link")!)![1]!, "https://x").searchParams.get("cursor")!;
    await expectProblem(await send("GET", url({ cursor: searchCursor })), 400, "invalid_query");
    await expectProblem(await send("GET", url({ q: "gondola", cursor: "garbage" })), 400, "invalid_query");
  });
});

describe("GET /v1/dataset?q= input", () => {
  it.each(["", "   ", "\t\n", "a".repeat(201), "***", '""', "-:"])("q=%j → 400 invalid_query", async (q) => {
    await expectProblem(await send("GET", url({ q })), 400, "invalid_query");
  });

  it("200 characters is enough", async () => {
    expect((await search({ q: "a".repeat(200) })).ids).toEqual([]);
  });

  it.each([
    '"',
    '"gondola',
    'gondola"',
    '"gondola" OR "museum"',
    "*",
    "gondola*",
    "*gondola",
    "NEAR(",
    "NEAR(gondola lifts, 2)",
    "OR",
    "gondola OR",
    "OR gondola",
    "AND",
    "NOT gondola",
    "-",
    "-gondola",
    "gondola -lifts",
    ":",
    "name:gondola",
    "{name description}: gondola",
    "^gondola",
    "(gondola",
    "gondola)",
    "+gondola",
    "gondola's",
    "' OR 1=1 --",
    "\u0000gondola",
    "\u0301",
  ])("q=%j never reaches FTS5 as syntax", async (q) => {
    const response = await send("GET", url({ q }));
    const text = await response.text();
    expect([200, 400], text).toContain(response.status);
    const body = JSON.parse(text) as Record<string, unknown>;
    if (response.status === 400) expect(body.code).toBe("invalid_query");
    else expect(Object.keys(body)).toEqual(["results"]);
  });

  it("operators in q are plain words", async () => {
    expect(onlyGondolas((await search({ q: "gondola OR museum" })).ids)).toEqual([]);
    expect(onlyGondolas((await search({ q: "NEAR(gondola museum)" })).ids)).toEqual([]);
    expect(onlyGondolas((await search({ q: '"gondola" museum*' })).ids)).toEqual([ids.gondolaOther]);
    expect(onlyGondolas((await search({ q: "-lifts gondola" })).ids)).toEqual([ids.gondolaName]);
  });
});
