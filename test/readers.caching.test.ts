// docs/edge-and-caching.md: ETag/304 on every GET, public vs private Cache-Control, the shared edge cache for
// unsigned public reads dropped on every write, and signed requests kept out of it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, gunzipText, send, write } from "./helpers/http.ts";

const PUBLIC = "public, max-age=60, stale-while-revalidate=300";
const IMMUTABLE = "public, max-age=31536000, immutable";

describe("conditional GETs", () => {
  it("every 200 GET has a strong ETag and a matching If-None-Match gives 304", async () => {
    const key = await createKey("cache-team", "cache-etag");
    const d = await createDataset(key, "a\n1\n", { name: "etag", visibility: "public" });
    for (const path of [`/v1/dataset/${d.id}`, `/v1/dataset/${d.id}/${d.version}`, d.source, d.source.slice(0, -3), "/v1/dataset?team=cache-team"]) {
      for (const signer of [undefined, key]) {
        const first = await send("GET", path, { key: signer });
        expect(first.status).toBe(200);
        const etag = first.headers.get("etag");
        expect(etag).toMatch(/^"[^"]+"$/);
        await first.arrayBuffer();
        const again = await send("GET", path, { key: signer, headers: { "If-None-Match": etag! } });
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        expect(await again.text()).toBe("");
      }
    }
  });

  it("public anonymous reads are publicly cacheable; signed and private ones are not", async () => {
    const key = await createKey("cache-team", "cache-cc");
    const pub = await createDataset(key, "a\n1\n", { name: "pub", visibility: "public" });
    const priv = await createDataset(key, "a\n1\n", { name: "priv" });
    expect((await send("GET", `/v1/dataset/${pub.id}`)).headers.get("cache-control")).toBe(PUBLIC);
    expect((await send("GET", pub.source)).headers.get("cache-control")).toBe(IMMUTABLE);
    expect((await send("GET", `/v1/dataset/${pub.id}`, { key })).headers.get("cache-control")).toBe("private, no-store");
    expect((await send("GET", `/v1/dataset/${priv.id}`, { key })).headers.get("cache-control")).toBe("private, no-store");
    expect((await send("GET", "/v1/dataset", { key })).headers.get("cache-control")).toBe("private, no-store");
  });
});

describe("the shared edge cache", () => {
  it("a write drops cached records, lists and latest downloads", async () => {
    const key = await createKey("cache-team", "cache-write");
    const d = await createDataset(key, "a\n1\n", { name: "before", visibility: "public" });
    const record = `/v1/dataset/${d.id}`;
    const latestCsv = `/v1/dataset/${d.id}/latest/data.csv`;
    expect(((await (await send("GET", record)).json()) as { name: string }).name).toBe("before");
    expect(await (await send("GET", latestCsv)).text()).toBe("a\n1\n");
    const listed = async () => ((await (await send("GET", "/v1/dataset?team=cache-team")).json()) as { results: Array<{ id: string; name: string }> }).results;
    expect((await listed()).find((r) => r.id === d.id)?.name).toBe("before");

    await write("PUT", record, key, [collectionPart({ name: "after" })]);
    await appendRows(key, d.id, "2\n");
    expect(((await (await send("GET", record)).json()) as { name: string }).name).toBe("after");
    expect(await (await send("GET", latestCsv)).text()).toBe("a\n1\n2\n");
    expect((await listed()).find((r) => r.id === d.id)?.name).toBe("after");
  });

  it("a cached anonymous read never leaks after the dataset turns private", async () => {
    const key = await createKey("cache-team", "cache-private");
    const other = await createKey("cache-other", "cache-outsider");
    const d = await createDataset(key, "secret\n1\n", { name: "soon private", visibility: "public" });
    const paths = [`/v1/dataset/${d.id}`, `/v1/dataset/${d.id}/${d.version}`, d.source, `/v1/dataset/${d.id}/latest/data.csv`];
    for (const path of paths) expect((await send("GET", path)).status).toBe(200);
    const listedBefore = await send("GET", "/v1/dataset?limit=1000");
    expect(JSON.stringify(await listedBefore.json())).toContain(d.id);

    await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })]);
    for (const path of paths) {
      expect((await send("GET", path)).status).toBe(404);
      expect((await send("GET", path, { key: other })).status).toBe(404);
    }
    expect(JSON.stringify(await (await send("GET", "/v1/dataset?limit=1000")).json())).not.toContain(d.id);
  });

  it("anonymous public reads are answered from the edge cache once stored", async () => {
    const key = await createKey("cache-team", "cache-hit");
    const d = await createDataset(key, "a\n1\n", { name: "original", visibility: "public" });
    const path = `/v1/dataset/${d.id}/${d.version}`;
    expect(((await (await send("GET", path)).json()) as { name: string }).name).toBe("original");
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Change the stored snapshot behind the API's back: only a cache hit still says "original".
    await env.DB.prepare("UPDATE versions SET name = 'changed' WHERE id = ?").bind(d.version).run();
    expect(((await (await send("GET", path)).json()) as { name: string }).name).toBe("original");
    expect(((await (await send("GET", path, { key })).json()) as { name: string }).name).toBe("changed");
  });

  it("signed reads are never served from the shared cache", async () => {
    const key = await createKey("cache-team", "cache-signed");
    const d = await createDataset(key, "a\n1\n", { name: "shared", visibility: "public" });
    await send("GET", `/v1/dataset/${d.id}`);
    const signed = await send("GET", `/v1/dataset/${d.id}`, { key });
    expect(signed.headers.get("cache-control")).toBe("private, no-store");
  });
});

describe("HEAD and CORS", () => {
  it("HEAD works for records and downloads, with the GET's headers and no body", async () => {
    const key = await createKey("cache-team", "cache-head");
    const d = await createDataset(key, "a\n1\n", { name: "head", visibility: "public" });
    const get = await send("GET", d.source);
    const head = await send("HEAD", d.source);
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect(await gunzipText(get)).toBe("a\n1\n");
  });

  it("every response allows any origin; preflight allows the signature headers", async () => {
    const response = await send("GET", "/v1/dataset");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const preflight = await send("OPTIONS", "/v1/dataset", {
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "signature, signature-input, content-digest" },
    });
    expect(preflight.status).toBeLessThan(300);
    const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const header of ["signature", "signature-input", "content-digest", "idempotency-key", "if-match"]) expect(allowed).toContain(header);
    const exposed = (response.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const header of ["etag", "link", "location", "retry-after"]) expect(exposed).toContain(header);
  });
});
