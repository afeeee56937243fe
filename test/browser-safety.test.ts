// docs/edge-and-caching.md "Browser safety" and the download names of docs/api.md#writes, from the reproductions of issue 17:
// nosniff on every response, a CSP on every HTML page, /docs pinned by SRI with no inline
// handler, downloads that never run, publisher text isolated for direction, and the exact
// header sets of /docs, a download, an error and /openapi.json.
import { beforeAll, describe, expect, it } from "vitest";
import { SCALAR_INTEGRITY, SCALAR_URL } from "../src/openapi/reference-page.tsx";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { collectionPart, createDataset, csvPart, send, write } from "./helpers/http.ts";

let key: TestKey;
let dataset: { id: string; version: string; source: string };

beforeAll(async () => {
  key = await createKey("safety-team", "safety-user");
  dataset = await createDataset(key, "a\n1\n", { name: "safety", visibility: "public" }, "page.html");
});

const EXPOSE = "ETag,Link,Location,Retry-After,Idempotent-Replayed,X-D1-Bookmark,RateLimit,RateLimit-Policy,Upload-Offset,Upload-Complete,Upload-Limit,Upload-Length";
/** The draft-11 quota fields every response carries (src/edge/rate-limit.ts). */
const QUOTA = { ratelimit: expect.stringMatching(/^"anonymous";r=\d+;t=\d+$/), "ratelimit-policy": expect.stringMatching(/^"anonymous";q=\d+;w=\d+$/) };

function headerMap(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].map(([name, value]) => [name.toLowerCase(), value]));
}

/** What differs between a local cache hit and a miss (a hit adds them; the bodies are compared
 * byte for byte), and the quota left, which changes with every request. */
const CACHE_STATE = new Set(["age", "date", "cf-cache-status", "content-length", "ratelimit"]);

function contentHeaders(response: Response): Record<string, string> {
  return Object.fromEntries(Object.entries(headerMap(response)).filter(([name]) => !CACHE_STATE.has(name)));
}

describe("X-Content-Type-Options: nosniff on every response", () => {
  const cases: Array<[string, () => Promise<Response>]> = [
    ["a JSON record", () => send("GET", `/v1/dataset/${dataset.id}`)],
    ["a list", () => send("GET", "/v1/dataset")],
    ["a .csv download", () => send("GET", dataset.source.slice(0, -3))],
    ["a .gz download", () => send("GET", dataset.source)],
    ["a cache hit", async () => (await send("GET", dataset.source).then((r) => r.arrayBuffer()), send("GET", dataset.source))],
    ["a 304", async () => send("GET", `/v1/dataset/${dataset.id}`, { headers: { "If-None-Match": (await send("GET", `/v1/dataset/${dataset.id}`)).headers.get("etag")! } })],
    ["a 404 problem", () => send("GET", "/v1/dataset/00000000-0000-4000-8000-000000000000")],
    ["a 400 problem", () => send("GET", "/v1/dataset?limit=0")],
    ["a 401 problem", () => write("POST", "/v1/dataset", undefined, [csvPart("a\n")])],
    ["an unknown route", () => send("GET", "/no/such/route")],
    ["an HTML 404", () => send("GET", "/no/such/page", { headers: { Accept: "text/html" } })],
    ["a CORS preflight", () => send("OPTIONS", "/v1/dataset", { headers: { Origin: "https://x.example", "Access-Control-Request-Method": "PUT" } })],
    ["/openapi.json", () => send("GET", "/openapi.json")],
    ["/docs", () => send("GET", "/docs")],
    ["the catalog home", () => send("GET", "/")],
    ["a dataset page", () => send("GET", `/datasets/${dataset.id}`)],
    ["a redirect", () => send("GET", "/datasets", { redirect: "manual" })],
  ];
  for (const [label, request] of cases) {
    it(label, async () => {
      const response = await request();
      await response.arrayBuffer();
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    });
  }
});

describe("a Content-Security-Policy on every HTML page", () => {
  const pages: Array<[string, string]> = [
    ["home", "/"],
    ["home with a bad query", "/?team=%20bad%20"],
    ["dataset page", "/datasets/__ID__"],
    ["missing dataset", "/datasets/00000000-0000-4000-8000-000000000000"],
    ["unknown page", "/no/such/page"],
    ["docs", "/docs"],
  ];
  for (const [label, path] of pages) {
    it(label, async () => {
      const response = await send("GET", path.replace("__ID__", dataset.id), { headers: { Accept: "text/html" } });
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain("'unsafe-eval'");
      expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      const html = await response.text();
      // No inline event handler and no inline script anywhere. A JSON-LD block (a dataset page's
      // schema.org Dataset, docs/column-types.md) is data the browser never runs; it must parse as JSON.
      expect(html).not.toMatch(/<[^>]+\son[a-z]+=/i);
      for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
        if (script[1] === ' type="application/ld+json"') expect(() => JSON.parse(script[2] ?? "")).not.toThrow();
        else expect(script[2]).toBe("");
      }
    });
  }
});

describe("/docs", () => {
  it("loads Scalar pinned by SRI, from the one URL its policy allows, with no inline handler", async () => {
    const response = await send("GET", "/docs");
    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)><\/script>/g)].map((m) => m[1] ?? "");
    const external = scripts.filter((attributes) => attributes.includes(" src="));
    expect(external).toEqual([` src="${SCALAR_URL}" integrity="${SCALAR_INTEGRITY}" crossorigin="anonymous" referrerpolicy="no-referrer"`]);
    expect(SCALAR_INTEGRITY).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    const scriptSrc = /script-src ([^;]+)/.exec(response.headers.get("content-security-policy") ?? "")?.[1];
    expect(scriptSrc).toBe(SCALAR_URL);
    expect(html).not.toContain("onload");
  });
});

describe("exact header sets", () => {
  it("/docs", async () => {
    const response = await send("GET", "/docs");
    expect(headerMap(response)).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSE,
      "cache-control": "public, max-age=300",
      "content-security-policy":
        `default-src 'none'; script-src ${SCALAR_URL}; style-src 'unsafe-inline'; img-src 'self' data:; ` +
        "font-src https://fonts.scalar.com; connect-src 'self' https://pubset.test; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      "content-type": "text/html; charset=UTF-8",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      ...QUOTA,
    });
  });

  it("/openapi.json", async () => {
    expect(headerMap(await send("GET", "/openapi.json"))).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSE,
      "cache-control": "public, max-age=300",
      "content-type": "application/json",
      "x-content-type-options": "nosniff",
      ...QUOTA,
    });
  });

  it("a .csv download", async () => {
    const fresh = await createDataset(key, "a\n1\n", { name: "pinned csv", visibility: "public" }, "page.html");
    const response = await send("GET", fresh.source.slice(0, -3));
    expect(headerMap(response)).toEqual({
      "accept-ranges": "bytes",
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSE,
      "cache-control": "public, max-age=31536000, immutable",
      "cache-tag": `dataset:${fresh.id}`,
      "content-disposition": 'attachment; filename="page.html.csv"',
      "content-length": "4",
      "content-type": "text/csv; charset=utf-8",
      etag: `"${fresh.version}.csv"`,
      link: `</v1/dataset/${fresh.id}/${fresh.version}/datapackage.json>; rel="describedby"; type="application/json"`,
      vary: "Accept-Encoding, Signature, X-D1-Bookmark",
      "x-content-type-options": "nosniff",
      ...QUOTA,
    });
  });

  it("a .gz download", async () => {
    const fresh = await createDataset(key, "a\n1\n", { name: "pinned gz", visibility: "public" }, "page.html");
    const response = await send("GET", fresh.source);
    expect(headerMap(response)).toEqual({
      "accept-ranges": "bytes",
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSE,
      "cache-control": "public, max-age=31536000, immutable",
      "cache-tag": `dataset:${fresh.id}`,
      "content-disposition": 'attachment; filename="page.html.csv.gz"',
      "content-length": expect.stringMatching(/^\d+$/),
      "content-type": "application/gzip",
      etag: `"${fresh.version}.gz"`,
      link: `</v1/dataset/${fresh.id}/${fresh.version}/datapackage.json>; rel="describedby"; type="application/json"`,
      vary: "Signature, X-D1-Bookmark",
      "x-content-type-options": "nosniff",
      ...QUOTA,
    });
  });

  it("an error", async () => {
    const response = await send("GET", "/v1/dataset/00000000-0000-4000-8000-000000000000");
    expect(response.status).toBe(404);
    expect(headerMap(response)).toEqual({
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSE,
      "cache-control": "no-store",
      "content-type": "application/problem+json",
      "x-content-type-options": "nosniff",
      ...QUOTA,
    });
  });
});

describe("downloads never run (docs/api.md#writes)", () => {
  const names: Array<[string, string]> = [
    ["page.html", "page.html.csv"],
    ["evil.svg", "evil.svg.csv"],
    ["x.exe", "x.exe.csv"],
    ["cities.csv", "cities.csv"],
    ["LOUD.CSV", "LOUD.csv"],
    ["notes", "notes.csv"],
  ];
  for (const [sent, csv] of names) {
    it(`${sent} is saved as ${csv} (and ${csv}.gz, and its Parquet), by the API and by the catalog`, async () => {
      const d = await createDataset(key, "a\n1\n", { name: `download ${sent}`, visibility: "public" }, sent);
      const gz = await send("GET", d.source);
      expect(gz.headers.get("content-disposition")).toBe(`attachment; filename="${csv}.gz"`);
      const plain = await send("GET", d.source.slice(0, -3));
      expect(plain.headers.get("content-disposition")).toBe(`attachment; filename="${csv}"`);
      const html = await (await send("GET", `/datasets/${d.id}`)).text();
      const saved = [...html.matchAll(/ download="([^"]*)"/g)].map((m) => m[1] ?? "");
      expect(saved.length).toBeGreaterThanOrEqual(4);
      // The Parquet twin is saved as the CSV's name with .parquet for .csv: never the sent extension last.
      const parquet = `${csv.slice(0, -4)}.parquet`;
      for (const name of saved) expect(name === csv || name === `${csv}.gz` || name === parquet, name).toBe(true);
      expect(html).toContain(`-o ${csv} `);
      // `source` keeps part A's rule: the stored name plus .gz.
      expect(d.source.endsWith(`/${sent.includes(".") ? sent : `${sent}.csv`}.gz`)).toBe(true);
    });
  }

  it("stored names are at most 128 characters, even with a long extension", async () => {
    for (const sent of [`a.${"b".repeat(300)}`, `${"c".repeat(300)}.csv`, "d".repeat(300)]) {
      const d = await createDataset(key, "a\n1\n", { name: "long name" }, sent);
      const stored = d.source.split("/").pop()!.slice(0, -3);
      expect(stored.length).toBeLessThanOrEqual(128);
      expect(stored).toMatch(/^[A-Za-z0-9._-]+$/);
      const response = await send("GET", d.source, { key });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-disposition")).toMatch(/\.csv\.gz"$/);
    }
  });
});

describe("publisher text is isolated for direction", () => {
  it("a right-to-left override in a name, description, key word, contact, header or cell cannot reorder the page", async () => {
    const rlo = "\u202E";
    const d = await createDataset(
      key,
      `${rlo}head,b\n${rlo}evil,2\n`,
      { name: `${rlo}name`, visibility: "public", properties: { description: `${rlo}desc`, key_words: [`${rlo}word`], contact_name: `${rlo}contact` } },
    );
    for (const page of [`/datasets/${d.id}`, "/?team=safety-team"]) {
      const html = await (await send("GET", page)).text();
      let found = 0;
      for (const m of html.matchAll(/<([a-z0-9]+)([^>]*)>([^<]*)/g)) {
        if (!(m[3] ?? "").includes(rlo)) continue;
        found++;
        const [, tag, attributes] = m;
        if (tag === "title") {
          expect.unreachable(`<title> kept a bidi control: ${m[3]}`);
        } else if (tag === "td") {
          // Preview cells are isolated by the stylesheet, not by markup (docs/catalog.md).
          expect(attributes, `<td${attributes}>${m[3]}`).toBe("");
          expect(html).toMatch(/\btd\{[^}]*unicode-bidi:plaintext/);
        } else {
          expect(tag === "bdi" || / dir="auto"/.test(attributes ?? ""), `<${tag}${attributes}>${m[3]}`).toBe(true);
        }
      }
      expect(found).toBeGreaterThanOrEqual(page.startsWith("/datasets") ? 6 : 2);
      // The title is plain text: neither our isolates nor the publisher's override.
      expect(/<title>([^<]*)<\/title>/.exec(html)?.[1]).not.toMatch(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/);
    }
  });
});

describe("one origin (docs/edge-and-caching.md)", () => {
  const foreign: Array<[string, { url: string; headers: Record<string, string> }]> = [
    ["a foreign Host", { url: "https://evil.example", headers: {} }],
    ["X-Forwarded-Host", { url: "https://pubset.test", headers: { "X-Forwarded-Host": "evil.example", Forwarded: "host=evil.example;proto=http" } }],
    ["a foreign Host and port over http", { url: "http://evil.example:8080", headers: { "X-Forwarded-Proto": "http" } }],
  ];
  const paths = () => [
    "/",
    `/datasets/${dataset.id}`,
    "/docs",
    "/openapi.json",
    "/v1/dataset",
    "/v1/dataset?limit=1",
    `/v1/dataset/${dataset.id}`,
    `/v1/dataset/${dataset.id}/versions`,
    `/v1/dataset/${dataset.id}/latest/rows`,
    dataset.source,
    dataset.source.slice(0, -3),
    "/datasets/00000000-0000-4000-8000-000000000000",
  ];

  for (const [label, { url, headers }] of foreign) {
    it(`${label} changes no byte of any cacheable response`, async () => {
      for (const path of paths()) {
        const reference = await send("GET", path);
        const referenceBody = new Uint8Array(await reference.arrayBuffer());
        const response = await send("GET", url + path, { headers });
        const body = new Uint8Array(await response.arrayBuffer());
        expect(response.status, path).toBe(reference.status);
        expect(contentHeaders(response), path).toEqual(contentHeaders(reference));
        expect(new TextDecoder().decode(body), path).toBe(new TextDecoder().decode(referenceBody));
        expect(new TextDecoder().decode(body)).not.toContain("evil.example");
      }
    });
  }

  it("servers in /openapi.json and the catalog's commands name PUBLIC_ORIGIN", async () => {
    const document = (await (await send("GET", "https://evil.example/openapi.json")).json()) as { servers: Array<{ url: string }> };
    expect(document.servers).toEqual([{ url: "https://pubset.test" }]);
    const html = await (await send("GET", `https://evil.example/datasets/${dataset.id}`)).text();
    expect(html).toContain(`--url https://pubset.test`);
    expect(html).toContain(`https://pubset.test/v1/dataset/${dataset.id}/latest/page.html`);
  });

  it("a write's Location stays a path", async () => {
    const response = await write("POST", "https://evil.example/v1/dataset", key, [collectionPart({ name: "located" }), csvPart("a\n1\n")]);
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toMatch(/^\/v1\/dataset\/[0-9a-f-]{36}$/);
  });
});
