// The OpenAPI document is generated from the route definitions: every API route the app
// serves is documented, nothing documented is missing, and every problem code is listed.
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { PROBLEMS } from "../src/model/errors.ts";
import { send } from "./helpers/http.ts";

type Doc = { openapi: string; paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses: Record<string, unknown> }>>; components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> } };

async function document(): Promise<Doc> {
  const response = await send("GET", "/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Doc;
}

describe("GET /openapi.json", () => {
  it("describes a webhook delivery in OpenAPI 3.1's webhooks section: its headers, body and success", async () => {
    const doc = (await document()) as unknown as { webhooks: Record<string, { post: { parameters: Array<{ name: string; in: string }>; requestBody: { content: Record<string, { schema: { $ref: string } }> }; responses: Record<string, unknown> } }> };
    const delivery = doc.webhooks["dataset-event"]!.post;
    expect(delivery.parameters.filter((p) => p.in === "header").map((p) => p.name).sort()).toEqual(["webhook-id", "webhook-signature", "webhook-timestamp"]);
    expect(delivery.requestBody.content["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/WebhookDeliveryBody" });
    expect(Object.keys(delivery.responses).sort()).toEqual(["200", "default"]);
  });

  it("is OpenAPI 3.1 and documents exactly the routes the app serves: the API, the pages and the docs", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    const served = new Set(
      createApp()
        .routes.filter((r) => !r.path.includes("*") && r.method !== "ALL")
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)));
    expect([...documented].sort()).toEqual([...served].sort());
    expect(served.has("get /datasets/{id}")).toBe(true);
    expect(served.has("get /v1/dataset/{id}/versions")).toBe(true);
  });

  it("lists every problem code and documents the signature and caching headers", async () => {
    const doc = await document();
    expect(doc.components.schemas.Problem?.properties?.code?.enum?.sort()).toEqual(Object.keys(PROBLEMS).sort());
    const create = doc.paths["/v1/dataset"]?.post;
    const names = (create?.parameters ?? []).map((p) => p.name);
    for (const name of ["Signature", "Signature-Input", "Content-Digest", "Idempotency-Key"]) expect(names).toContain(name);
    const get = doc.paths["/v1/dataset/{id}"]?.get;
    expect(Object.keys(get?.responses ?? {})).toEqual(expect.arrayContaining(["200", "304", "404"]));
  });
});

describe("GET /docs", () => {
  it("serves the interactive reference over /openapi.json", async () => {
    const response = await send("GET", "/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).toMatch(/<script src="https:\/\/cdn\.jsdelivr\.net\/npm\/@scalar\/api-reference@[\d.]+\/dist\/browser\/standalone\.js" integrity="sha384-[^"]+" crossorigin="anonymous"/);
  });

  it("is a readable reference without JavaScript: every operation, its parameters and answers, and the signing scheme", async () => {
    const doc = await document();
    const html = await (await send("GET", "/docs")).text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<div id="static-reference" class="reference">');
    const headings = [...html.matchAll(/<h2 id="op-\d+"><code>([A-Z]+) ([^<]+)<\/code><\/h2>/g)].map((m) => `${m[1]?.toLowerCase()} ${m[2]}`);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    expect(headings.sort()).toEqual(operations.sort());
    for (const name of ["Signature-Input", "Content-Digest", "Idempotency-Key", "If-Match", "If-None-Match"]) expect(html).toContain(`<code>${name}</code>`);
    expect(html).toContain("Signing requests (RFC 9421, hmac-sha256)");
    expect(html).toContain("<code>412</code>");
  });

  it("renders the description's Markdown as HTML: headings, lists and code, nothing left raw", async () => {
    const html = await (await send("GET", "/docs")).text();
    const reference = html.slice(html.indexOf('<div id="static-reference"'));
    expect(reference).toContain("<h2>Signing requests (RFC 9421, hmac-sha256)</h2>");
    expect(reference).toContain("<h2>Errors</h2>");
    expect(reference).toMatch(/<ol><li>With a body, send <code>Content-Digest: /);
    expect(reference.match(/<ol>[\s\S]*?<\/ol>/)?.[0].match(/<li>/g)).toHaveLength(3);
    const text = reference.replace(/<[^>]+>/g, "");
    expect(text).not.toMatch(/^#|\n#|##/);
    expect(text).not.toContain("`");
    expect(html).not.toContain("<pre>Versioned CSV");
    // The site header is the catalog's.
    expect(html).toContain('<header class="site"><div class="wrap"><a class="brand" href="/">pubset</a>');
  });

  it("lists the multipart parts of every write with their media types", async () => {
    const doc = (await document()) as unknown as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required: string[]; properties: Record<string, unknown> }; encoding: Record<string, { contentType: string }> }> } }>> };
    const writes = [["/v1/dataset", "post", ["collection", "dataset"]], ["/v1/dataset/{id}", "put", []], ["/v1/dataset/{id}", "post", ["dataset"]]] as const;
    const html = await (await send("GET", "/docs")).text();
    for (const [path, method, required] of writes) {
      const multipart = doc.paths[path]?.[method]?.requestBody?.content["multipart/form-data"];
      expect(Object.keys(multipart?.schema.properties ?? {})).toEqual(["collection", "dataset"]);
      expect(multipart?.schema.required).toEqual(required);
      expect(multipart?.encoding).toEqual({ collection: { contentType: "application/json" }, dataset: { contentType: "text/csv, application/gzip" } });
      const section = html.slice(html.indexOf(`<code>${method.toUpperCase()} ${path}</code>`));
      const parts = section.slice(0, section.indexOf("</section>"));
      expect(parts).toMatch(/<td><code>collection<\/code><\/td><td><code>application\/json<\/code><\/td>/);
      expect(parts).toMatch(/<td><code>dataset<\/code><\/td><td><code>text\/csv, application\/gzip<\/code><\/td>/);
    }
  });
});
