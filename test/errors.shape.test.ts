// One error shape across every failure kind (docs/api.md#errors, RFC 9457): problem+json with exactly
// type/title/status/detail/code plus documented extensions; no stack, SQL or paths.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { collectionPart, createDataset, csvPart, send, write } from "./helpers/http.ts";

const STANDARD = ["code", "detail", "status", "title", "type"];
const EXTENSIONS = new Set(["row", "expected", "found", "limit", "max"]);

describe("problem details", () => {
  it("every failure kind has the same shape", async () => {
    const key = await createKey("shape-team", "shape-user");
    const created = await createDataset(key, "a,b\n1,2\n");
    const failures: Response[] = [
      await send("GET", "/v1/dataset/not-a-uuid"),
      await send("GET", "/v1/dataset?limit=0"),
      await write("POST", "/v1/dataset", undefined, [collectionPart({ name: "x" }), csvPart("a\n1\n")]),
      await send("GET", "/v1/dataset", { key, tamper: (h) => h.set("signature", "sig1=:AAAA:") }),
      await send("GET", "/v1/dataset?owner=someone-else", { key }),
      await send("GET", "/v1/dataset/00000000-0000-4000-8000-000000000000"),
      await send("DELETE", "/v1/dataset"),
      await send("GET", "/nowhere"),
      await write("POST", `/v1/dataset/${created.id}`, key, [csvPart("1,2,3\n")]),
      await write("POST", "/v1/dataset", key, [collectionPart({ name: "x" }), csvPart("a,b\n1\n")]),
      await send("POST", "/v1/dataset", { key, body: new TextEncoder().encode("x"), headers: { "Content-Type": "text/plain" } }),
    ];
    const statuses = new Set<number>();
    for (const response of failures) {
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      const text = await response.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      for (const name of STANDARD) expect(body).toHaveProperty(name);
      for (const name of Object.keys(body)) expect(STANDARD.includes(name) || EXTENSIONS.has(name)).toBe(true);
      expect(body.status).toBe(response.status);
      expect(body.type).toBe(`/problems/${String(body.code)}`);
      expect(String(body.code)).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(text).not.toMatch(/at \w+ \(|\.ts:\d+|SQLITE|SELECT |node_modules/);
      statuses.add(response.status);
    }
    expect([...statuses].sort()).toEqual([400, 401, 403, 404, 405, 415, 422]);
  });

  it("405 carries Allow", async () => {
    const response = await send("PATCH", "/v1/dataset");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("GET");
  });
});
