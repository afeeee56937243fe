// Issue 27, item 1: a `collection` nested thousands of levels deep once committed a dataset and
// then answered 500 "changed nothing". JSON nesting is bounded (32 levels) before anything else
// reads the collection, and a write's answer is serialised before its commit.
import { describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { csvPart, expectProblem, send, write, type Part } from "./helpers/http.ts";
import { mulberry32, pick, randomInt, type Random } from "./helpers/random.ts";
import { startUploadResponse } from "./helpers/uploads.ts";

const CSV = "a,b\n1,2\n";

/** JSON text `depth` levels deep, written by hand: JSON.stringify itself may overflow on it. */
function nestedText(depth: number, random: Random, width = 1): string {
  let text = '"leaf"';
  for (let level = 0; level < depth; level++) {
    const siblings = Array.from({ length: randomInt(random, 0, width - 1) }, (_, i) => `"s${i}":${i}`);
    text = pick(random, ["array", "object"]) === "array" ? `[${[text, ...siblings.map((_, i) => String(i))].join(",")}]` : `{${[`"k${level}":${text}`, ...siblings].join(",")}}`;
  }
  return text;
}

function collectionText(member: "properties" | "schema", valueText: string): Part {
  return { name: "collection", value: `{"name":"Deep","visibility":"public","${member}":${valueText}}`, contentType: "application/json" };
}

async function teamDatasetCount(key: TestKey): Promise<number> {
  const response = await send("GET", "/v1/dataset", { key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: unknown[] }).results.length;
}

describe("JSON nesting in the collection", () => {
  it("refuses properties 6,000 levels deep with 400 naming the limit, and commits nothing", async () => {
    const key = await createKey("team-depth", "alice");
    const deep = "[".repeat(6000) + "]".repeat(6000);
    const response = await write("POST", "/v1/dataset", key, [collectionText("properties", `{"deep":${deep}}`), csvPart(CSV)]);
    const problem = await expectProblem(response, 400, "invalid_request");
    expect(problem.limit).toBe(32);
    expect(String(problem.detail)).toContain("collection.properties");
    expect(await teamDatasetCount(key)).toBe(0);
  });

  it("refuses it the same way with an Idempotency-Key (not a 503 that says retry), and again on the retry", async () => {
    const key = await createKey("team-depth-idem", "bob");
    const deep = `{"deep":${"[".repeat(6000)}${"]".repeat(6000)}}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await write("POST", "/v1/dataset", key, [collectionText("properties", deep), csvPart(CSV)], { "Idempotency-Key": "deep-create-1" });
      await expectProblem(response, 400, "invalid_request");
    }
    expect(await teamDatasetCount(key)).toBe(0);
  });

  it("refuses a deep collection in a resumable upload's creation", async () => {
    const key = await createKey("team-depth-upload", "carol");
    let properties: unknown = 1;
    for (let level = 0; level < 40; level++) properties = { next: properties };
    const response = await startUploadResponse(key, "POST", "/v1/dataset", { collection: { name: "Deep", properties: properties as Record<string, unknown> } });
    await expectProblem(response, 400, "invalid_request");
    expect(await teamDatasetCount(key)).toBe(0);
  });

  it("accepts properties exactly 32 levels deep, and answers them back whole", async () => {
    const key = await createKey("team-depth-ok", "dave");
    const text = "[".repeat(31) + "]".repeat(31);
    const response = await write("POST", "/v1/dataset", key, [collectionText("properties", `{"ok":${text}}`), csvPart(CSV)]);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { properties: { ok: unknown } };
    expect(JSON.stringify(body.properties.ok)).toBe(text);
  });

  it("fuzz: random depth and width in properties and schema; too deep is 4xx and changes nothing", async () => {
    const random = mulberry32(27_001);
    const key = await createKey("team-depth-fuzz", "erin");
    let created = 0;
    for (let round = 0; round < 16; round++) {
      const member = pick(random, ["properties", "schema"] as const);
      const depth = pick(random, [randomInt(random, 1, 32), randomInt(random, 33, 80), randomInt(random, 500, 6000)]);
      const value = nestedText(depth - 1, random, randomInt(random, 1, 4));
      const wrapped = member === "properties" ? `{"x":${value}}` : `{"fields":[{"name":"a","type":"string","title":${value}}]}`;
      const before = await teamDatasetCount(key);
      const response = await write("POST", "/v1/dataset", key, [collectionText(member, wrapped), csvPart(CSV)]);
      // Levels of objects and arrays in the member: its own object, the wrappers, then `value`.
      const levels = member === "properties" ? 1 + (depth - 1) : 3 + (depth - 1);
      const tooDeep = levels > 32;
      if (tooDeep || member === "schema") {
        // A deep schema is too deep; a shallow one is still not a valid field title.
        expect(response.status, `${member} at depth ${depth}`).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        if (tooDeep) expect(((await response.json()) as { code: string }).code).toBe("invalid_request");
        else await response.body?.cancel();
        expect(await teamDatasetCount(key)).toBe(before);
      } else if (wrapped.length > 16 * 1024) {
        await expectProblem(response, 400, "invalid_request");
      } else {
        expect(response.status, `${member} at depth ${depth}`).toBe(201);
        await response.body?.cancel();
        created++;
        expect(await teamDatasetCount(key)).toBe(before + 1);
      }
    }
    expect(created).toBeGreaterThan(0);
  });
});
