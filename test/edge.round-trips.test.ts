// D1 round trips per request, counted with a wrapper around the real binding, in the production
// setting (EDGE_CACHE=workers-cache: the Worker keeps no cache; Workers Cache answers hits before
// it runs). An anonymous read of a record, a download or rows on a miss makes one round trip (one
// batch); a signed GET writes nothing (its nonce is not stored) and, once its key is cached in
// the isolate, reads no more than an anonymous one.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/wire/sign.ts";
import worker from "../src/index.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";
import { ORIGIN, collectionPart, createDataset, csvPart, multipart } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

async function counted(request: Request, vars: Record<string, string> = {}) {
  const counter = countingD1(env.DB);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, EDGE_CACHE: "workers-cache", ...vars, DB: counter.db }, ctx);
  await response.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return { response, queries: counter.queries.length, writes: counter.queries.filter((q) => q.write).length, sessions: counter.sessions };
}

async function signedGet(key: TestKey, path: string, nonce?: string): Promise<Request> {
  const url = ORIGIN + path;
  return new Request(url, { headers: await signRequest({ method: "GET", url }, key, nonce === undefined ? {} : { nonce }) });
}

describe("D1 round trips", () => {
  it("anonymous GET of a record, a download or rows on a miss: one round trip, no write, one session", async () => {
    const key = await createKey("trips-team", "trips-anon");
    const d = await createDataset(key, "a\n1\n", { name: "trips", visibility: "public" });
    const base = `/v1/dataset/${d.id}`;
    const paths = [base, `${base}/${d.version}`, `${base}/latest/data.csv.gz`, `${base}/${d.version}/data.csv`, `${base}/${d.version}/rows`, `${base}/latest/rows?limit=1`];
    for (const path of paths) {
      const { response, queries, writes, sessions } = await counted(new Request(ORIGIN + path));
      expect(response.status, path).toBe(200);
      expect(queries, path).toBe(1);
      expect(writes).toBe(0);
      expect(sessions).toEqual(["first-unconstrained"]);
      // The per-request D1 count is reported only in bench mode.
      expect(response.headers.get("x-bench-d1")).toBeNull();
    }
  });

  it("signed GET writes nothing, and its key is looked up once per isolate-minute", async () => {
    const key = await createKey("trips-team", "trips-signed");
    const d = await createDataset(key, "a\n1\n", { name: "signed trips" });
    const path = `/v1/dataset/${d.id}`;
    const first = await counted(await signedGet(key, path));
    expect(first.response.status).toBe(200);
    expect(first.writes).toBe(0);
    const second = await counted(await signedGet(key, path));
    expect(second.response.status).toBe(200);
    expect(second.writes).toBe(0);
    expect(second.queries).toBe(1);
  });

  it("a nonce on a signed GET is optional and not stored; on a write it is required and recorded", async () => {
    const key = await createKey("trips-team", "trips-nonce");
    const d = await createDataset(key, "a\n1\n", { name: "nonce trips" });
    const path = `/v1/dataset/${d.id}`;
    expect((await counted(await signedGet(key, path, "same-nonce"))).response.status).toBe(200);
    expect((await counted(await signedGet(key, path, "same-nonce"))).response.status).toBe(200);
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM nonces WHERE key_id = ?").bind(key.keyId).first<{ n: number }>();
    const { body, contentType } = multipart([collectionPart({ name: "w" }), csvPart("a\n1\n")]);
    const url = `${ORIGIN}/v1/dataset`;
    const headers = await signRequest({ method: "POST", url, headers: { "Content-Type": contentType }, body }, key, { nonce: "write-nonce" });
    const write = await counted(new Request(url, { method: "POST", headers, body }));
    expect(write.response.status).toBe(201);
    expect(write.sessions).toEqual(["first-primary"]);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM nonces WHERE key_id = ?").bind(key.keyId).first<{ n: number }>();
    expect(after!.n).toBe(stored!.n + 1);
  });
});
