// GET /openapi.json from a real `npm start`, validated against the official OpenAPI 3.1 JSON
// schema by @seriousme/openapi-schema-validator (ajv compiles validators with `new Function`,
// which workerd forbids, hence a Node test). The validator also rejects a `$ref` that does not
// resolve inside the document. Beyond the schema: every operation documents its path
// parameters and at least one 4xx `application/problem+json` response.
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { e2eServer, type E2eServer } from "./helpers/shared-server.ts";

type Json = Record<string, unknown>;
interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  $ref?: string;
}
interface Operation {
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

let server: E2eServer & { stop(): Promise<void> };
let document: Json;

beforeAll(async () => {
  server = await e2eServer();
  const response = await fetch(`${server.url}/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json\b/);
  document = (await response.json()) as Json;
});
afterAll(async () => {
  await server?.stop();
});

async function validate(doc: Json): Promise<{ valid: boolean; errors?: unknown; version: string }> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  return { ...result, version: validator.version };
}

function operations(doc: Json): Array<[string, Operation]> {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document that the official 3.1 schema accepts, every $ref resolving", async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await validate(document);
    expect(result.valid, `OpenAPI validation errors:\n${JSON.stringify(result.errors, null, 2)}`).toBe(true);
    expect(result.version).toBe("3.1");
  });

  it("is checked by a validator that does reject a broken document", async () => {
    const wrongType = await validate({ ...document, openapi: "3.1.0", paths: 42 });
    expect(wrongType.valid).toBe(false);
    expect(JSON.stringify(wrongType.errors)).toContain("/paths");

    const dangling = structuredClone(document) as Json & { components: { schemas: Json } };
    delete dangling.components.schemas.Problem;
    const danglingResult = await validate(dangling);
    expect(danglingResult.valid).toBe(false);
    expect(String(danglingResult.errors)).toContain("#/components/schemas/Problem");
  });

  it("documents the dataset API: every operation, its path parameters and its problem responses", () => {
    const all = operations(document);
    const ops = all.filter(([name]) => name.includes(" /v1/"));
    const componentParameters = ((document.components as Json | undefined)?.parameters ?? {}) as Record<string, Parameter | undefined>;
    expect(all.filter(([name]) => !name.includes(" /v1/")).map(([name]) => name).sort()).toEqual(
      ["GET /", "GET /catalog.jsonld", "GET /datasets", "GET /datasets/{id}", "GET /datasets/{id}/", "GET /docs", "GET /favicon.ico", "GET /openapi.json"].sort(),
    );
    expect(ops.map(([name]) => name).sort()).toEqual(
      [
        "GET /v1/dataset",
        "POST /v1/dataset",
        "GET /v1/dataset/{id}",
        "PUT /v1/dataset/{id}",
        "POST /v1/dataset/{id}",
        "DELETE /v1/dataset/{id}",
        "GET /v1/dataset/{id}/versions",
        "GET /v1/dataset/{id}/{version}",
        "GET /v1/dataset/{id}/{version}/rows",
        "GET /v1/dataset/{id}/{version}/rows.csv",
        "GET /v1/dataset/{id}/{version}/schema",
        "GET /v1/dataset/{id}/{version}/statistics",
        "GET /v1/dataset/{id}/{version}/datapackage.json",
        "GET /v1/dataset/{id}/{version}/croissant.jsonld",
        "GET /v1/dataset/{id}/{version}/{file}",
        "GET /v1/uploads/{id}",
        "PATCH /v1/uploads/{id}",
        "DELETE /v1/uploads/{id}",
        "GET /v1/changes",
        "POST /v1/webhooks",
        "GET /v1/webhooks",
        "GET /v1/webhooks/{id}",
        "DELETE /v1/webhooks/{id}",
        "POST /v1/webhooks/{id}/secret",
        "GET /v1/webhooks/{id}/deliveries",
        "POST /v1/webhooks/{id}/enable",
      ].sort(),
    );
    for (const [name, operation] of all) {
      const templated = [...name.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const declared = (operation.parameters ?? [])
        .map((p) => (p.$ref === undefined ? p : componentParameters[p.$ref.replace("#/components/parameters/", "")]))
        .filter((p) => p?.in === "path" && p.required === true)
        .map((p) => p?.name);
      expect(declared.sort(), `${name}: path parameters`).toEqual(templated.sort());
      if (!name.includes(" /v1/")) continue;

      const problems = Object.entries(operation.responses).filter(([status]) => /^4\d\d$/.test(status));
      expect(problems.length, `${name}: a 4xx response`).toBeGreaterThan(0);
      for (const [status, response] of problems) {
        expect(response.content?.["application/problem+json"]?.schema, `${name} ${status}`).toEqual({ $ref: "#/components/schemas/Problem" });
      }
    }
  });
});
