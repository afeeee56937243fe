// GET /v1/changes (docs/changes.md): cursors, order, the team's and the public view, waiting,
// and no event skipped or reordered while 20 writers append to one dataset.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../src/index.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { ORIGIN, appendRows, collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";

interface Event {
  cursor: string;
  type: string;
  id: string;
  version: string | null;
  team: string | null;
  occurred: string;
}
interface Page {
  results: Event[];
  next: string;
}

async function page(query: string, key?: TestKey): Promise<{ response: Response; body: Page }> {
  const response = await send("GET", `/v1/changes${query}`, { key });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { response, body: JSON.parse(text) as Page };
}

/** Every event after `since`, following `next` until a page comes back empty. */
async function readAll(since: string, key?: TestKey, limit = 7): Promise<Event[]> {
  const events: Event[] = [];
  let cursor = since;
  for (;;) {
    const { body } = await page(`?since=${encodeURIComponent(cursor)}&limit=${limit}`, key);
    if (body.results.length === 0) return events;
    events.push(...body.results);
    cursor = body.next;
  }
}

async function now(key?: TestKey): Promise<string> {
  return (await page("?since=now", key)).body.next;
}

async function put(key: TestKey, id: string, collection: Record<string, unknown>, csv?: string): Promise<string> {
  const parts = [collectionPart(collection), ...(csv === undefined ? [] : [csvPart(csv)])];
  const response = await write("PUT", `/v1/dataset/${id}`, key, parts);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { version: string }).version;
}

let owner: TestKey;
let outsider: TestKey;

beforeAll(async () => {
  owner = await createKey("feed-team", "feed-owner");
  outsider = await createKey("feed-other", "feed-outsider");
});

describe("GET /v1/changes", () => {
  it("pages oldest first with opaque cursors, Link rel=next and no caching", async () => {
    const start = await now(owner);
    const d = await createDataset(owner, "a\n1\n", { name: "Feed paging" });
    const v2 = (await (await appendRows(owner, d.id, "2\n")).json()) as { version: string };
    const v3 = (await (await appendRows(owner, d.id, "3\n")).json()) as { version: string };

    const first = await page(`?since=${start}&limit=2`, owner);
    expect(first.body.results.map((e) => [e.type, e.id, e.version, e.team])).toEqual([
      ["dataset.created", d.id, d.version, "feed-team"],
      ["dataset.appended", d.id, v2.version, "feed-team"],
    ]);
    expect(first.body.next).toBe(first.body.results[1]!.cursor);
    expect(first.response.headers.get("Link")).toBe(`</v1/changes?since=${first.body.next}&limit=2>; rel="next"`);
    expect(first.response.headers.get("Cache-Control")).toMatch(/no-store/);
    expect(Date.parse(first.body.results[0]!.occurred)).not.toBeNaN();

    const second = await page(`?since=${first.body.next}&limit=2`, owner);
    expect(second.body.results.map((e) => e.version)).toEqual([v3.version]);
    const empty = await page(`?since=${second.body.next}`, owner);
    expect(empty.body).toEqual({ results: [], next: second.body.next });
  });

  it("since=now starts at the newest event; no since starts at the first", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "Feed now" });
    const from = await now(owner);
    expect((await page(`?since=${from}`, owner)).body.results).toEqual([]);
    await appendRows(owner, d.id, "2\n");
    expect((await page(`?since=${from}`, owner)).body.results.map((e) => e.type)).toEqual(["dataset.appended"]);
    const fromStart = (await page("?limit=1000", owner)).body.results;
    expect(fromStart.filter((e) => e.id === d.id).map((e) => e.type)).toEqual(["dataset.created", "dataset.appended"]);
  });

  it("refuses cursors it did not issue and bad queries with 400, and unsigned garbage signatures with 401", async () => {
    await expectProblem(await send("GET", "/v1/changes?since="), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes?since=bm90LWEtY3Vyc29y"), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes?since=WzVd"), 400, "invalid_query"); // a version list's cursor
    await expectProblem(await send("GET", "/v1/changes?since=WyJjaGFuZ2VzIiwtMV0"), 400, "invalid_query"); // ["changes",-1]
    await expectProblem(await send("GET", "/v1/changes?wait=26"), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes?limit=0"), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes?limit=1001"), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes?other=1"), 400, "invalid_query");
    await expectProblem(await send("GET", "/v1/changes", { headers: { Signature: "sig1=:AAAA:", "Signature-Input": 'sig1=("@method");keyid="nope"' } }), 401, "signature_invalid");
  });
});

describe("who sees which event", () => {
  it("the unsigned feed never shows a draft; publishing, withdrawing and deleting are told with the id only", async () => {
    const start = await now();
    const startTeam = await now(owner);
    const d = await createDataset(owner, "a\nDRAFT\n", { name: "Feed drafts" });
    const draftAppend = (await (await appendRows(owner, d.id, "DRAFT2\n")).json()) as { version: string };
    const published = await put(owner, d.id, { visibility: "public" });
    const publicAppend = (await (await appendRows(owner, d.id, "open\n")).json()) as { version: string };
    const unpublished = await put(owner, d.id, { visibility: "private" });
    const privateAppend = (await (await appendRows(owner, d.id, "SECRET\n")).json()) as { version: string };
    const republished = await put(owner, d.id, { visibility: "public" });
    expect((await send("DELETE", `/v1/dataset/${d.id}`, { key: owner })).status).toBe(204);

    const mine = (events: Event[]) => events.filter((e) => e.id === d.id);
    const outside = mine(await readAll(start));
    // Deleted now: its public events are hidden (the next test reads them while it is public),
    // and its withdrawals stay, one for the flip to private and one for the delete.
    expect(outside.map((e) => [e.type, e.id, e.version, e.team])).toEqual([
      ["dataset.withdrawn", d.id, null, null],
      ["dataset.withdrawn", d.id, null, null],
    ]);
    // Another team's signed feed shows its own team's events only.
    expect(mine(await readAll(startTeam, outsider))).toEqual([]);
    // The owning team sees everything, in commit order.
    expect(mine(await readAll(startTeam, owner)).map((e) => [e.type, e.version])).toEqual([
      ["dataset.created", d.version],
      ["dataset.appended", draftAppend.version],
      ["dataset.published", published],
      ["dataset.appended", publicAppend.version],
      ["dataset.unpublished", unpublished],
      ["dataset.appended", privateAppend.version],
      ["dataset.published", republished],
      ["dataset.deleted", null],
    ]);
  });

  it("while a dataset is public, outsiders see its public versions' events and never its drafts", async () => {
    const start = await now();
    const d = await createDataset(owner, "a\nDRAFT\n", { name: "Feed public view" });
    const draft = (await (await appendRows(owner, d.id, "DRAFT2\n")).json()) as { version: string };
    const published = await put(owner, d.id, { visibility: "public" });
    const open = (await (await appendRows(owner, d.id, "open\n")).json()) as { version: string };
    const unpublished = await put(owner, d.id, { visibility: "private" });
    const hidden = (await (await appendRows(owner, d.id, "SECRET\n")).json()) as { version: string };
    // Private now: nothing of it but the withdrawal.
    let outside = (await readAll(start)).filter((e) => e.id === d.id);
    expect(outside.map((e) => [e.type, e.id, e.version, e.team])).toEqual([["dataset.withdrawn", d.id, null, null]]);
    const republished = await put(owner, d.id, { visibility: "public" });
    outside = (await readAll(start, undefined, 2)).filter((e) => e.id === d.id);
    expect(outside.map((e) => [e.type, e.version])).toEqual([
      ["dataset.published", published],
      ["dataset.appended", open.version],
      ["dataset.withdrawn", null],
      ["dataset.published", republished],
    ]);
    const text = JSON.stringify(outside);
    for (const secret of [d.version, draft.version, unpublished, hidden.version]) expect(text).not.toContain(secret);
    // Another team, signed, sees none of it in its own feed.
    expect((await readAll(start, outsider)).filter((e) => e.id === d.id)).toEqual([]);
  });
});

describe("waiting", () => {
  it("wait holds the request until an event exists, and answers it at once", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "Feed wait" });
    const from = await now(owner);
    const started = Date.now();
    const waiting = page(`?since=${from}&wait=20`, owner);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await appendRows(owner, d.id, "2\n");
    const { body } = await waiting;
    expect(body.results.map((e) => e.type)).toEqual(["dataset.appended"]);
    expect(Date.now() - started).toBeLessThan(15_000); // answered by the event, not by the timeout
  });

  it("an idle wait answers empty when it runs out, after a bounded number of reads", async () => {
    const from = await now(owner);
    const counter = countingD1(env.DB);
    const ctx = createExecutionContext();
    const url = `${ORIGIN}/v1/changes?since=${from}&wait=3`;
    const response = await worker.fetch(new Request(url), { ...env, DB: counter.db }, ctx);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Page).results).toEqual([]);
    await waitOnExecutionContext(ctx);
    // 3 s of waiting: the first read, then pauses of 0.25, 0.5, 1 s and the rest (docs/changes.md "Waiting").
    expect(counter.queries.length).toBeLessThanOrEqual(6);
    expect(counter.queries.every((q) => !q.write)).toBe(true);
  });
});

describe("order under concurrency", { timeout: 120_000 }, () => {
  it("20 concurrent appenders: the feed from the start is the versions chain, in order, none skipped", async () => {
    const key = await createKey("feed-concurrent", "writers");
    const created = await createDataset(key, "writer,n\n");
    // A reader following the feed while the writers append, as a mirror would.
    let following = true;
    const followed: Event[] = [];
    const follower = (async () => {
      let cursor = "";
      while (following) {
        const query = cursor === "" ? "?limit=5" : `?since=${cursor}&limit=5`;
        const { body } = await page(query, key);
        followed.push(...body.results);
        cursor = body.next;
      }
      for (;;) {
        const { body } = await page(`?since=${cursor}&limit=5`, key);
        if (body.results.length === 0) return;
        followed.push(...body.results);
        cursor = body.next;
      }
    })();
    const writers = Array.from({ length: 20 }, async (_, w) => {
      for (let n = 0; n < 3; n++) {
        const response = await appendRows(key, created.id, `${w},${n}\n`);
        expect(response.status, await response.text()).toBe(201);
      }
    });
    await Promise.all(writers);
    following = false;
    await follower;

    const { results: chain } = await env.DB.prepare("SELECT id FROM versions WHERE dataset_id = ? ORDER BY seq").bind(created.id).all<{ id: string }>();
    expect(chain).toHaveLength(61);
    const head = (await page("?limit=1000", key)).body;
    const fromStart = [...head.results, ...(await readAll(head.next, key))];
    for (const events of [fromStart, followed]) {
      const mine = events.filter((e) => e.id === created.id);
      expect(mine.map((e) => e.version)).toEqual(chain.map((v) => v.id));
      expect(mine.map((e) => e.type)).toEqual(["dataset.created", ...Array.from({ length: 60 }, () => "dataset.appended")]);
    }
  });
});
