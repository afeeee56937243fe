import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { createDataset, expectProblem, send } from "./helpers/http.ts";

let alice: TestKey;
let bob: TestKey;
let other: TestKey;
const made: Array<{ id: string; owner: string; visibility: string }> = [];

beforeAll(async () => {
  alice = await createKey("list-team", "list-alice");
  bob = await createKey("list-team", "list-bob");
  other = await createKey("list-other", "list-carol");
  for (const [key, visibility] of [[alice, "public"], [alice, "private"], [bob, "public"], [bob, "private"], [other, "public"], [other, "private"]] as const) {
    const d = await createDataset(key, "a\n1\n", { name: `${key.user}-${visibility}`, visibility, properties: { description: "d" } });
    made.push({ id: d.id, owner: key.user, visibility });
  }
});

async function list(query: string, key?: TestKey) {
  const response = await send("GET", `/v1/dataset${query}`, { key });
  expect(response.status).toBe(200);
  return { response, body: (await response.json()) as { results: Array<Record<string, unknown>> } };
}

describe("GET /v1/dataset", () => {
  it("signed: every dataset of the key's team, newest first, owner-list shape", async () => {
    const { body } = await list("", alice);
    expect(Object.keys(body)).toEqual(["results"]);
    const mine = made.filter((m) => m.owner !== "list-carol").map((m) => m.id).reverse();
    expect(body.results.map((r) => r.id)).toEqual(mine);
    for (const r of body.results) expect(Object.keys(r).sort()).toEqual(["id", "name", "owner", "team", "version", "visibility"]);
  });

  it("signed with owner: that user's datasets; a user outside the team → 403", async () => {
    const { body } = await list("?owner=list-bob", alice);
    expect(body.results.map((r) => r.id).sort()).toEqual(made.filter((m) => m.owner === "list-bob").map((m) => m.id).sort());
    await expectProblem(await send("GET", "/v1/dataset?owner=list-carol", { key: alice }), 403, "forbidden");
  });

  it("anonymous: public datasets only; with owner, that user's public ones", async () => {
    const { body } = await list("?owner=list-bob");
    expect(body.results.map((r) => r.id)).toEqual(made.filter((m) => m.owner === "list-bob" && m.visibility === "public").map((m) => m.id));
    const all = await list("?limit=1000");
    const ids = all.body.results.map((r) => r.id);
    for (const m of made) expect(ids.includes(m.id)).toBe(m.visibility === "public");
  });

  it("team filter: that team's public datasets in the team-list shape", async () => {
    const { body } = await list("?team=list-team");
    expect(body.results.map((r) => r.id).sort()).toEqual(made.filter((m) => m.owner !== "list-carol" && m.visibility === "public").map((m) => m.id).sort());
    for (const r of body.results) expect(Object.keys(r).sort()).toEqual(["created", "id", "name", "properties", "version", "visibility"]);
    const outsider = await list("?team=list-team", other);
    expect(outsider.body.results.length).toBe(2);
  });

  it("team and owner together: the intersection in the owner-list shape", async () => {
    const { body } = await list("?team=list-team&owner=list-alice");
    expect(body.results.map((r) => r.id)).toEqual(made.filter((m) => m.owner === "list-alice" && m.visibility === "public").map((m) => m.id));
    for (const r of body.results) expect(Object.keys(r).sort()).toEqual(["id", "name", "owner", "team", "version", "visibility"]);
  });

  it("paginates with limit, an opaque cursor and Link rel=next", async () => {
    const seen: string[] = [];
    let path: string | null = "/v1/dataset?limit=2";
    let pages = 0;
    while (path) {
      const response = await send("GET", path, { key: alice });
      const body = (await response.json()) as { results: Array<{ id: string }> };
      seen.push(...body.results.map((r) => r.id));
      const link = response.headers.get("link");
      path = link ? /<([^>]+)>; rel="next"/.exec(link)![1]! : null;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toEqual(made.filter((m) => m.owner !== "list-carol").map((m) => m.id).reverse());
  });

  it.each(["?limit=0", "?limit=1001", "?limit=abc", "?cursor=garbage", "?ownr=x", "?owner="])("%s → 400 invalid_query", async (query) => {
    await expectProblem(await send("GET", `/v1/dataset${query}`), 400, "invalid_query");
  });
});
