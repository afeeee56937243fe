// A failed validation's `detail` is in the API's words, one sentence naming what to change
// (src/http/issue-words.ts): bounds as "at most", a repeated query parameter as such, unknown
// parameters and fields by name, a choice with its options; a schema's own message as written.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";

const detail = async (response: Response, status: number, code: string) => (await expectProblem(response, status, code)).detail;

describe("problem details of a failed validation", () => {
  it("word query bounds, repeats and unknown parameters", async () => {
    const key = await createKey("wording-team", "wording-user");
    const d = await createDataset(key, "a\n1\n", { name: "Wording", visibility: "public" });
    expect(await detail(await send("GET", "/v1/dataset?limit=0"), 400, "invalid_query")).toBe("limit: at least 1");
    expect(await detail(await send("GET", "/v1/dataset?limit=5000"), 400, "invalid_query")).toBe("limit: at most 1000");
    expect(await detail(await send("GET", `/v1/dataset?q=${"x".repeat(201)}`), 400, "invalid_query")).toBe("q: at most 200 characters");
    expect(await detail(await send("GET", "/v1/dataset?limit=5&limit=6"), 400, "invalid_query")).toBe("limit: given 2 times; give it once");
    expect(await detail(await send("GET", `/v1/dataset/${d.id}/latest/rows?order=a&order=-a&order=a`), 400, "invalid_query")).toBe("order: given 3 times; give it once");
    expect(await detail(await send("GET", `/v1/dataset/${d.id}/latest?x=1`), 400, "invalid_query")).toBe('unknown query parameter "x"');
    expect(await detail(await send("GET", "/v1/changes?wait=26", { key }), 400, "invalid_query")).toBe("wait: at most 25");
    // A schema's own message is kept.
    expect(await detail(await send("GET", "/v1/dataset?team=a%20b"), 400, "invalid_query")).toBe("team: must be 1-64 characters of A-Z a-z 0-9 . _ -");
  });

  it("on /rows and /rows.csv, say what to ask instead of another API's parameters", async () => {
    const key = await createKey("wording-team", "wording-reader");
    const d = await createDataset(key, "state,n\nNY,1\nCA,2\n", { name: "Hints", visibility: "public" });
    const rows = `/v1/dataset/${d.id}/latest/rows`;
    const filter = await detail(await send("GET", `${rows}?state=NY`), 400, "invalid_query");
    expect(filter).toBe(`unknown query parameter "state"; to keep the rows where the column "state" is NY, ask where=state = 'NY'`);
    // The advice, followed, answers.
    const followed = await send("GET", `${rows}?where=${encodeURIComponent("state = 'NY'")}`);
    expect(((await followed.json()) as { rows: unknown[][] }).rows).toEqual([["NY", 1]]);
    expect(await detail(await send("GET", `${rows}?n=2`), 400, "invalid_query")).toContain("ask where=n = 2");
    expect(await detail(await send("GET", `${rows}?sort=-n`), 400, "invalid_query")).toBe('unknown query parameter "sort"; this API asks that with order (docs/queries.md)');
    expect(await detail(await send("GET", `${rows}?$select=n`), 400, "invalid_query")).toContain("asks that with columns");
    expect(await detail(await send("GET", `${rows}?per_page=5`), 400, "invalid_query")).toContain("pages are asked with offset and limit");
    expect(await detail(await send("GET", `${rows}?q=Y`), 400, "invalid_query")).toBe(`unknown query parameter "q"; rows are found with where, e.g. where=<column> LIKE '%Y%'`);
    expect(await detail(await send("GET", `${rows}.csv?limit=5`), 400, "invalid_query")).toContain("rows.csv answers every matching row");
    // Elsewhere an unknown parameter is only named.
    expect(await detail(await send("GET", `/v1/dataset/${d.id}/latest?state=NY`), 400, "invalid_query")).toBe('unknown query parameter "state"');
  });

  it("word a collection's and a webhook's JSON by field", async () => {
    const key = await createKey("wording-team", "wording-writer");
    const create = (collection: unknown) => write("POST", "/v1/dataset", key, [collectionPart(collection), csvPart("a\n1\n")]);
    expect(await detail(await create({ name: 5 }), 400, "invalid_request")).toBe("collection.name: must be a string");
    expect(await detail(await create({ name: "" }), 400, "invalid_request")).toBe("collection.name: must not be empty");
    expect(await detail(await create({ name: "x", visibility: "secret" }), 400, "invalid_request")).toBe('collection.visibility: must be one of "public", "private"');
    expect(await detail(await create({ name: "x", zzz: 1 }), 400, "invalid_request")).toBe('collection: unknown field "zzz"');
    expect(await detail(await create({ name: "x", schema: { fields: [{ name: "a", type: "bogus" }] } }), 422, "invalid_schema")).toMatch(/^collection\.schema\.fields\.0\.type: must be one of "integer", /);

    const webhook = (body: unknown) => send("POST", "/v1/webhooks", { key, body: new TextEncoder().encode(JSON.stringify(body)), headers: { "Content-Type": "application/json" } });
    expect(await detail(await webhook({ url: 5 }), 400, "invalid_request")).toBe("url: must be a string");
    expect(await detail(await webhook({ url: "https://example.com/hook", extra: 1 }), 400, "invalid_request")).toBe('body: unknown field "extra"');
    expect(await detail(await webhook([]), 400, "invalid_request")).toBe("body: must be an object");
  });
});
