// docs/edge-and-caching.md immutable vs mutable: what each response tells Workers Cache (and any cache) to keep,
// under which purge tags, varying on what; errors and signed or bookmarked reads keep nothing.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { createDataset, send } from "./helpers/http.ts";
import { writeWithTwin } from "./catalog.helpers.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";
const MUTABLE = "public, max-age=60, stale-while-revalidate=300";
const BOOKMARK = "00000000-00000001-00000000-00000000000000000000000000000000";

describe("Cache-Control, Cache-Tag and Vary", () => {
  it("explicit version paths are immutable with a version-derived ETag; latest, versions and lists are mutable", async () => {
    const key = await createKey("policy-team", "policy-user");
    const d = await createDataset(key, "a\n1\n", { name: "policy", visibility: "public" });
    const tag = `dataset:${d.id}`;
    const immutable = [`/v1/dataset/${d.id}/${d.version}`, d.source, d.source.slice(0, -3), `/v1/dataset/${d.id}/${d.version}/rows`];
    const mutable = [`/v1/dataset/${d.id}`, `/v1/dataset/${d.id}/latest`, `/v1/dataset/${d.id}/latest/data.csv`, `/v1/dataset/${d.id}/latest/rows`, `/v1/dataset/${d.id}/versions`];
    for (const path of immutable) {
      const response = await send("GET", path, { headers: { "Accept-Encoding": "gzip" } });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(response.headers.get("cache-tag")).toBe(tag);
      expect(response.headers.get("vary")).toMatch(/Signature/);
      expect(response.headers.get("vary")).toMatch(/X-D1-Bookmark/);
      expect(response.headers.get("etag")).toMatch(/^"[^W]/);
    }
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).headers.get("etag")).toBe(`"${d.version}"`);
    expect((await send("GET", d.source)).headers.get("etag")).toContain(d.version);
    for (const path of mutable) {
      const response = await send("GET", path);
      await response.arrayBuffer();
      expect(response.headers.get("cache-control")).toBe(MUTABLE);
      expect(response.headers.get("cache-tag")).toBe(tag);
    }
    for (const path of ["/v1/dataset", "/v1/dataset?team=policy-team", "/v1/dataset?q=policy"]) {
      const response = await send("GET", path);
      await response.arrayBuffer();
      expect(response.headers.get("cache-control")).toBe(MUTABLE);
      expect(response.headers.get("cache-tag")).toBe("catalog");
    }
  });

  it("a 304 keeps the path's policy", async () => {
    const key = await createKey("policy-team", "policy-304");
    const d = await createDataset(key, "a\n1\n", { name: "p304", visibility: "public" });
    const path = `/v1/dataset/${d.id}/${d.version}`;
    const again = await send("GET", path, { headers: { "If-None-Match": `"${d.version}"` } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe(IMMUTABLE);
  });

  it("signed, private and bookmarked reads are private, no-store, with no tag", async () => {
    const key = await createKey("policy-team", "policy-private");
    const pub = await createDataset(key, "a\n1\n", { name: "pub", visibility: "public" });
    const priv = await createDataset(key, "a\n1\n", { name: "priv" });
    const responses = [
      await send("GET", `/v1/dataset/${pub.id}/${pub.version}`, { key }),
      await send("GET", `/v1/dataset/${priv.id}/${priv.version}`, { key }),
      await send("GET", priv.source, { key }),
      await send("GET", `/v1/dataset/${pub.id}/${pub.version}`, { headers: { "X-D1-Bookmark": BOOKMARK } }),
      await send("GET", "/v1/dataset", { headers: { "X-D1-Bookmark": BOOKMARK } }),
    ];
    for (const response of responses) {
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("private, no-store");
      expect(response.headers.get("cache-tag")).toBeNull();
    }
  });

  it("errors say no-store, so a 404 is not kept after a dataset turns public", async () => {
    const key = await createKey("policy-team", "policy-errors");
    const priv = await createDataset(key, "a\n1\n", { name: "hidden" });
    for (const path of [`/v1/dataset/${priv.id}`, `/v1/dataset/${priv.id}/${priv.version}`, priv.source, "/v1/dataset?limit=0", `/v1/dataset/${priv.id}?x=1`]) {
      const response = await send("GET", path);
      await response.arrayBuffer();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("cache-tag")).toBeNull();
    }
    const page = await send("GET", `/datasets/${priv.id}`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(404);
    expect(page.headers.get("cache-control")).toBe("no-store");
  });

  it("catalog pages carry the catalog tag, and a dataset page its dataset's", async () => {
    const key = await createKey("policy-team", "policy-pages");
    // Its statistics built: a page that says they are pending is no-store (catalog.columns.test.ts).
    const d = await writeWithTwin(key, "POST", "/v1/dataset", { name: "paged", visibility: "public" }, "a\n1\n");
    const home = await send("GET", "/", { headers: { Accept: "text/html" } });
    expect(home.headers.get("cache-tag")).toBe("catalog");
    const page = await send("GET", `/datasets/${d.id}`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-tag")).toBe(`dataset:${d.id},catalog`);
    // Pages keep their own short policy and answer everyone alike, signed or not.
    expect(page.headers.get("cache-control")).toBe("public, max-age=60");
  });
});
