// docs/api.md#who-sees-what drafts: versions written while a dataset is private stay its team's after it is made
// public. The matrix: every read path × {anonymous, same team, other team} × three histories,
// once directly and once twice through the local cache with `Accept-Encoding: gzip`.
import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";

let owner: TestKey;
let teammate: TestKey;
let outsider: TestKey;

type Caller = "anonymous" | "same team" | "other team";
const CALLERS: Caller[] = ["anonymous", "same team", "other team"];
const keyOf = (caller: Caller) => (caller === "anonymous" ? undefined : caller === "same team" ? teammate : outsider);

interface History {
  id: string;
  /** Each version: its id, its file name and whether outsiders may read it. */
  versions: Array<{ id: string; file: string; published: boolean; secret: string }>;
}

async function put(id: string, collection: Record<string, unknown> | null, csv?: string, fileName = "data.csv") {
  const parts = [];
  if (collection) parts.push(collectionPart(collection));
  if (csv !== undefined) parts.push(csvPart(csv, fileName));
  const response = await write("PUT", `/v1/dataset/${id}`, owner, parts);
  if (response.status !== 200) throw new Error(`PUT failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { version: string }).version;
}

const histories: Record<string, History> = {};

beforeAll(async () => {
  owner = await createKey("drafts-team", "drafts-owner");
  teammate = await createKey("drafts-team", "drafts-mate");
  outsider = await createKey("drafts-other", "drafts-outsider");

  // The reproduction: a private create holding EARLYSECRETROW, then a PUT that replaces
  // the content and publishes.
  {
    const d = await createDataset(owner, "word\nEARLYSECRETROW\n", { name: "Draftname alpha" }, "early.csv");
    const v2 = await put(d.id, { name: "Published alpha", visibility: "public" }, "word\npublic row\n", "later.csv");
    histories["never public"] = {
      id: d.id,
      versions: [
        { id: d.version, file: "early.csv", published: false, secret: "EARLYSECRETROW" },
        { id: v2, file: "later.csv", published: true, secret: "" },
      ],
    };
  }
  // The same, with the history published.
  {
    const d = await createDataset(owner, "word\nEARLYROWBETA\n", { name: "Draftname beta" }, "early.csv");
    const appended = await write("POST", `/v1/dataset/${d.id}`, owner, [csvPart("DRAFTAPPENDBETA\n")]);
    const v2 = ((await appended.json()) as { version: string }).version;
    const v3 = await put(d.id, { name: "Published beta", visibility: "public", history: "public" }, "word\npublic row\n", "later.csv");
    histories["published with history"] = {
      id: d.id,
      versions: [
        { id: d.version, file: "early.csv", published: true, secret: "EARLYROWBETA" },
        { id: v2, file: "early.csv", published: true, secret: "DRAFTAPPENDBETA" },
        { id: v3, file: "later.csv", published: true, secret: "" },
      ],
    };
  }
  // Public, then private (a draft written meanwhile), then public again without history.
  {
    const d = await createDataset(owner, "word\nfirst public\n", { name: "Published gamma", visibility: "public" }, "first.csv");
    const v2 = await put(d.id, { name: "Draftname gamma", visibility: "private" }, "word\nGAMMAEMBARGO\n", "embargo.csv");
    const v3 = await put(d.id, { name: "Published gamma again", visibility: "public" });
    histories["public, private, public"] = {
      id: d.id,
      versions: [
        { id: d.version, file: "first.csv", published: true, secret: "" },
        { id: v2, file: "embargo.csv", published: false, secret: "GAMMAEMBARGO" },
        { id: v3, file: "embargo.csv", published: true, secret: "GAMMAEMBARGO" },
      ],
    };
  }
});

/** Every path of one version; each must answer 200 when readable and 404 otherwise. */
function versionPaths(id: string, v: { id: string; file: string }): Array<[string, string]> {
  return [
    ["record", `/v1/dataset/${id}/${v.id}`],
    ["rows", `/v1/dataset/${id}/${v.id}/rows`],
    [".csv", `/v1/dataset/${id}/${v.id}/${v.file}`],
    [".gz", `/v1/dataset/${id}/${v.id}/${v.file}.gz`],
  ];
}

async function versionsListed(id: string, key: TestKey | undefined, headers: Record<string, string> = {}): Promise<string[]> {
  const response = await send("GET", `/v1/dataset/${id}/versions`, { key, headers });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Array<{ version: string }> }).results.map((r) => r.version);
}

describe.each(["never public", "published with history", "public, private, public"])("%s", (historyName) => {
  describe.each(CALLERS)("read by %s", (caller) => {
    const readable = (v: { published: boolean }) => caller === "same team" || v.published;

    it("every path of every version: 200 when readable, else 404 like a missing version", async () => {
      const h = histories[historyName]!;
      for (const v of h.versions) {
        for (const [label, path] of versionPaths(h.id, v)) {
          const response = await send("GET", path, { key: keyOf(caller) });
          if (readable(v)) {
            expect(response.status, `${label} of ${v.id}`).toBe(200);
            await response.arrayBuffer();
          } else {
            await expectProblem(response, 404, "not_found");
          }
        }
      }
    });

    it("the same, twice through the local cache with Accept-Encoding: gzip", async () => {
      const h = histories[historyName]!;
      for (const v of h.versions) {
        for (const [label, path] of versionPaths(h.id, v)) {
          const bodies: string[] = [];
          for (let i = 0; i < 2; i++) {
            const response = await send("GET", path, { key: keyOf(caller), headers: { "Accept-Encoding": "gzip" } });
            expect(response.status, `${label} of ${v.id}, try ${i + 1}`).toBe(readable(v) ? 200 : 404);
            bodies.push(new TextDecoder().decode(await response.arrayBuffer()));
          }
          expect(bodies[1]).toBe(bodies[0]);
          if (!readable(v)) expect(JSON.parse(bodies[1]!).code).toBe("not_found");
        }
      }
    });

    it("latest resolves to the newest version, which is published", async () => {
      const h = histories[historyName]!;
      const newest = h.versions[h.versions.length - 1]!;
      for (const path of [`/v1/dataset/${h.id}`, `/v1/dataset/${h.id}/latest`, `/v1/dataset/${h.id}/latest/rows`]) {
        for (let i = 0; i < 2; i++) {
          const response = await send("GET", path, { key: keyOf(caller), headers: { "Accept-Encoding": "gzip" } });
          expect(response.status).toBe(200);
          const body = (await response.json()) as { version?: string; rows?: string[][] };
          if (body.version !== undefined) expect(body.version).toBe(newest.id);
        }
      }
    });

    it("/versions lists exactly the readable versions, newest first", async () => {
      const h = histories[historyName]!;
      const expected = h.versions.filter(readable).map((v) => v.id).reverse();
      expect(await versionsListed(h.id, keyOf(caller))).toEqual(expected);
      expect(await versionsListed(h.id, keyOf(caller), { "Accept-Encoding": "gzip" })).toEqual(expected);
      expect(await versionsListed(h.id, keyOf(caller), { "Accept-Encoding": "gzip" })).toEqual(expected);
    });

    it("/versions pages never skip to a draft", async () => {
      const h = histories[historyName]!;
      const expected = h.versions.filter(readable).map((v) => v.id).reverse();
      const seen: string[] = [];
      let path: string | null = `/v1/dataset/${h.id}/versions?limit=1`;
      while (path !== null) {
        const response: Response = await send("GET", path, { key: keyOf(caller) });
        seen.push(...((await response.json()) as { results: Array<{ version: string }> }).results.map((r) => r.version));
        const next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "");
        path = next?.[1] ?? null;
      }
      expect(seen).toEqual(expected);
    });
  });

  it("the catalog page names no draft and shows none of its content", async () => {
    const h = histories[historyName]!;
    for (let i = 0; i < 2; i++) {
      const response = await send("GET", `/datasets/${h.id}`, { headers: { "Accept-Encoding": "gzip" } });
      expect(response.status).toBe(200);
      const html = await response.text();
      for (const v of h.versions) {
        expect(html.includes(v.id), v.id).toBe(v.published);
        if (!v.published && !h.versions.some((other) => other.published && other.secret === v.secret)) {
          expect(html).not.toContain(v.secret);
        }
      }
      expect(html).not.toContain("Draftname");
    }
  });

  it("search finds the published name, never a draft's", async () => {
    const h = histories[historyName]!;
    for (const caller of CALLERS) {
      const key = keyOf(caller);
      // A signed search covers the key's own team unless it names another.
      const team = caller === "other team" ? "&team=drafts-team" : "";
      const draft = await send("GET", `/v1/dataset?q=Draftname${team}`, { key });
      const ids = ((await draft.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id);
      expect(ids).not.toContain(h.id);
      const published = await send("GET", `/v1/dataset?q=Published${team}`, { key });
      expect(((await published.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id)).toContain(h.id);
    }
    const page = await (await send("GET", "/?q=Draftname")).text();
    expect(page).not.toContain(h.id);
  });
});

describe('"history": "public"', () => {
  it("is refused on create, without visibility public, and beside visibility private", async () => {
    const create = await write("POST", "/v1/dataset", owner, [collectionPart({ name: "x", visibility: "public", history: "public" }), csvPart("a\n1\n")]);
    await expectProblem(create, 400, "invalid_request");
    const d = await createDataset(owner, "a\n1\n", { name: "history rules" });
    for (const collection of [{ history: "public" }, { visibility: "private", history: "public" }, { visibility: "public", history: "private" }, { visibility: "public", history: true }]) {
      await expectProblem(await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart(collection)]), 400, "invalid_request");
      await expectProblem(await write("POST", `/v1/dataset/${d.id}`, owner, [collectionPart(collection), csvPart("2\n")]), 400, "invalid_request");
    }
    expect(await versionsListed(d.id, owner)).toEqual([d.version]);
  });

  it("an append that publishes may publish the history too", async () => {
    const d = await createDataset(owner, "a\nAPPENDDRAFT\n", { name: "append publishes" });
    const response = await write("POST", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "public", history: "public" }), csvPart("2\n")]);
    expect(response.status).toBe(201);
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}/rows`)).status).toBe(200);
  });

  it("a later publishing PUT on a public dataset publishes drafts left private before", async () => {
    const d = await createDataset(owner, "a\nLATERDRAFT\n", { name: "later history" });
    await put(d.id, { visibility: "public" });
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(404);
    await put(d.id, { visibility: "public", history: "public" });
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(200);
  });

  it("published drafts stay published after another private → public flip", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "flip twice" });
    await put(d.id, { visibility: "public", history: "public" });
    await put(d.id, { visibility: "private" });
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(404);
    await put(d.id, { visibility: "public" });
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(200);
  });

  it("a private dataset hides every version, drafts and published alike", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "all hidden", visibility: "public" });
    await put(d.id, { visibility: "private" });
    for (const caller of ["anonymous", "other team"] as const) {
      await expectProblem(await send("GET", `/v1/dataset/${d.id}/${d.version}`, { key: keyOf(caller) }), 404, "not_found");
      await expectProblem(await send("GET", `/v1/dataset/${d.id}/versions`, { key: keyOf(caller) }), 404, "not_found");
    }
  });
});

it("a draft the team has read is never served from the cache to anyone else", async () => {
  const d = await createDataset(owner, "word\nCACHEDDRAFT\n", { name: "cached draft" });
  await put(d.id, { visibility: "public" }, "word\npublic\n");
  for (const [, path] of versionPaths(d.id, { id: d.version, file: "data.csv" })) {
    const team = await send("GET", path, { key: teammate, headers: { "Accept-Encoding": "gzip" } });
    expect(team.status).toBe(200);
    expect(team.headers.get("cache-control")).toBe("private, no-store");
    await team.arrayBuffer();
    for (let i = 0; i < 2; i++) {
      await expectProblem(await send("GET", path, { headers: { "Accept-Encoding": "gzip" } }), 404, "not_found");
      await expectProblem(await send("GET", path, { key: outsider, headers: { "Accept-Encoding": "gzip" } }), 404, "not_found");
    }
  }
});

it("appends to a public dataset are published as they land", async () => {
  const d = await createDataset(owner, "a\n1\n", { name: "public appends", visibility: "public" });
  const appended = await appendRows(owner, d.id, "2\n");
  const version = ((await appended.json()) as { version: string }).version;
  expect((await send("GET", `/v1/dataset/${d.id}/${version}/rows`)).status).toBe(200);
});
