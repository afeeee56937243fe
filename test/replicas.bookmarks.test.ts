// docs/edge-and-caching.md "Replicas": one D1 session per request; reads start unconstrained, writes on the
// primary; writes answer X-D1-Bookmark; a request that sends one reads at least that fresh.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PubsetClient } from "../src/client/index.ts";
import worker from "../src/index.ts";
import { currentBookmark, laggingReplica } from "./helpers/d1-wrappers.ts";
import { signRequest } from "../src/wire/sign.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, expectProblem, multipart, send, write } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

const BOOKMARK_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

async function through(db: D1Database, request: Request): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, DB: db }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("X-D1-Bookmark", () => {
  it("writes answer one; a later read that sends it gets one at least as new", async () => {
    const key = await createKey("replica-team", "replica-writer");
    const created = await write("POST", "/v1/dataset", key, [collectionPart({ name: "bm", visibility: "public" }), csvPart("a\n1\n")]);
    expect(created.status).toBe(201);
    const bookmark = created.headers.get("x-d1-bookmark")!;
    expect(bookmark).toMatch(BOOKMARK_SHAPE);
    const { id } = (await created.json()) as { id: string };
    const appended = await write("POST", `/v1/dataset/${id}`, key, [csvPart("2\n")]);
    expect(appended.headers.get("x-d1-bookmark")! >= bookmark).toBe(true);
    const read = await send("GET", `/v1/dataset/${id}`, { headers: { "X-D1-Bookmark": bookmark } });
    expect(read.status).toBe(200);
    expect(read.headers.get("x-d1-bookmark")! >= bookmark).toBe(true);
  });

  it("an anonymous read carries none, a signed one does; a malformed one is 400 and reads nothing", async () => {
    const key = await createKey("replica-team", "replica-public");
    const d = await createDataset(key, "a\n1\n", { name: "pub", visibility: "public" });
    expect((await send("GET", `/v1/dataset/${d.id}`)).headers.get("x-d1-bookmark")).toBeNull();
    // Nor does an anonymous 404: a client would send it on and skip the edge cache from then on.
    expect((await send("GET", `/v1/dataset/${crypto.randomUUID()}`)).headers.get("x-d1-bookmark")).toBeNull();
    expect((await send("GET", `/v1/dataset/${d.id}`, { key })).headers.get("x-d1-bookmark")).toMatch(BOOKMARK_SHAPE);
    await expectProblem(await send("GET", `/v1/dataset/${d.id}`, { headers: { "X-D1-Bookmark": "not-a-bookmark" } }), 400, "invalid_request");
  });

  it("CORS lets a browser send it and read it", async () => {
    const preflight = await send("OPTIONS", "/v1/dataset", {
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-d1-bookmark" },
    });
    expect((preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase()).toContain("x-d1-bookmark");
    const response = await send("GET", "/v1/dataset");
    expect((response.headers.get("access-control-expose-headers") ?? "").toLowerCase()).toContain("x-d1-bookmark");
  });
});

describe("read-your-writes against a lagging replica", () => {
  it("without the bookmark a replica may not have the dataset yet; with it, the read waits for it", async () => {
    const key = await createKey("replica-team", "replica-ryw");
    const before = await currentBookmark(env.DB);
    const created = await write("POST", "/v1/dataset", key, [collectionPart({ name: "fresh", visibility: "public" }), csvPart("a\n1\n")]);
    const bookmark = created.headers.get("x-d1-bookmark")!;
    const { id } = (await created.json()) as { id: string };
    expect(bookmark > before).toBe(true);
    const replica = laggingReplica(env.DB, before, (row) => row.id === id || row.dataset_id === id);

    const stale = await through(replica.db, new Request(`${ORIGIN}/v1/dataset/${id}`));
    await expectProblem(stale, 404, "not_found");
    expect(replica.sessions.at(-1)).toBe("first-unconstrained");

    const fresh = await through(replica.db, new Request(`${ORIGIN}/v1/dataset/${id}`, { headers: { "X-D1-Bookmark": bookmark } }));
    expect(fresh.status).toBe(200);
    expect(replica.sessions.at(-1)).toBe(bookmark);
    expect(fresh.headers.get("cache-control")).toBe("private, no-store");
  });

  it("the TypeScript client keeps the newest bookmark and reads its own write", async () => {
    const key = await createKey("replica-team", "replica-client");
    const before = await currentBookmark(env.DB);
    let replica: ReturnType<typeof laggingReplica> | null = null;
    let createdId = "";
    const fetchThrough = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      return replica ? through(replica.db, request) : through(env.DB, request);
    };
    const client = new PubsetClient({ url: ORIGIN, key, fetch: fetchThrough as typeof fetch });
    const created = await client.create({ name: "client ryw", visibility: "public" }, new File(["a\n1\n"], "a.csv"));
    createdId = created.id;
    expect(client.bookmark).toMatch(BOOKMARK_SHAPE);
    const afterWrite = client.bookmark!;
    replica = laggingReplica(env.DB, before, (row) => row.id === createdId || row.dataset_id === createdId);
    expect((await client.get(created.id)).version).toBe(created.version);
    expect(replica.sessions.at(-1)).toBe(afterWrite);
    expect(client.bookmark! >= afterWrite).toBe(true);
  });

  it("an append's bookmark covers its commit, made in the append sequencer outside the request's session", async () => {
    const key = await createKey("replica-team", "replica-append");
    const d = await createDataset(key, "a\n1\n", { name: "appended", visibility: "public" });
    const before = await currentBookmark(env.DB);
    // The request's own session answers with an old bookmark, as a replica that has not yet
    // received the sequencer's commit would.
    const frozen = {
      withSession: (constraint?: string) => {
        const session = env.DB.withSession(constraint);
        return { prepare: (sql: string) => session.prepare(sql), batch: (statements: D1PreparedStatement[]) => session.batch(statements), getBookmark: () => before };
      },
    } as unknown as D1Database;
    const { body, contentType } = multipart([csvPart("2\n")]);
    const url = `${ORIGIN}/v1/dataset/${d.id}`;
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key);
    const response = await through(frozen, new Request(url, { method: "POST", headers, body }));
    expect(response.status).toBe(201);
    const bookmark = response.headers.get("x-d1-bookmark")!;
    expect(bookmark > before).toBe(true);
    const { version } = (await response.json()) as { version: string };
    const replica = laggingReplica(env.DB, before, (row) => row.id === version || row.version_id === version);
    const read = await through(replica.db, new Request(`${ORIGIN}/v1/dataset/${d.id}/${version}`, { headers: { "X-D1-Bookmark": bookmark } }));
    expect(read.status).toBe(200);
  });

  it("writes start on the primary, whatever bookmark they carry", async () => {
    const key = await createKey("replica-team", "replica-primary");
    const before = await currentBookmark(env.DB);
    const replica = laggingReplica(env.DB, before, () => false);
    const { body, contentType } = multipart([collectionPart({ name: "p" }), csvPart("a\n1\n")]);
    const url = `${ORIGIN}/v1/dataset`;
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType, "X-D1-Bookmark": before }, body }, key);
    const response = await through(replica.db, new Request(url, { method: "POST", headers, body }));
    expect(response.status).toBe(201);
    expect(replica.sessions).toEqual(["first-primary"]);
  });
});
