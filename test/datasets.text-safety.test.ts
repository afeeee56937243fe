// Issue 27, item 5: a name that is only a zero-width space, or holds a NUL or a lone surrogate,
// was accepted. A name must show something; no string in a collection may hold a NUL or a lone
// surrogate (which is not Unicode text and cannot be served as UTF-8 as sent).
import { describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { createDataset, csvPart, expectProblem, send, write, type Part } from "./helpers/http.ts";

const CSV = "a,b\n1,2\n";

/** The collection as JSON text with escapes kept as written (`\u0000`, `\ud800`). */
function rawCollection(text: string): Part {
  return { name: "collection", value: text, contentType: "application/json" };
}

async function count(key: TestKey): Promise<number> {
  const response = await send("GET", "/v1/dataset", { key });
  return ((await response.json()) as { results: unknown[] }).results.length;
}

describe("text a collection may hold", () => {
  it("refuses names that show nothing or hold control characters or lone surrogates", async () => {
    const key = await createKey("team-text", "alice");
    const names = ['"\\u200b"', '" \\u200b\\u2060 "', '"\\ufeff"', '"a\\u0000b"', '"tab\\there"', '"line\\nbreak"', '"\\ud800"', '"x\\udc00y"', '"\\u202e"'];
    for (const name of names) {
      const response = await write("POST", "/v1/dataset", key, [rawCollection(`{"name":${name}}`), csvPart(CSV)]);
      await expectProblem(response, 400, "invalid_request");
    }
    expect(await count(key)).toBe(0);
  });

  it("refuses a NUL or a lone surrogate anywhere in properties, keys included, and on a PUT", async () => {
    const key = await createKey("team-text", "bob");
    for (const properties of ['{"description":"a\\u0000"}', '{"key_words":["\\udfff"]}', '{"\\ud83d":1}', '{"deep":[{"x":"\\u0000"}]}']) {
      const response = await write("POST", "/v1/dataset", key, [rawCollection(`{"name":"Ok","properties":${properties}}`), csvPart(CSV)]);
      await expectProblem(response, 400, "invalid_request");
    }
    expect(await count(key)).toBe(0);
    const created = await createDataset(key, CSV, { name: "Kept" });
    const put = await write("PUT", `/v1/dataset/${created.id}`, key, [rawCollection('{"name":"\\u200b"}')]);
    await expectProblem(put, 400, "invalid_request");
    const record = (await (await send("GET", `/v1/dataset/${created.id}`, { key })).json()) as { name: string; version: string };
    expect(record).toMatchObject({ name: "Kept", version: created.version });
  });

  it("accepts names in any script, with emoji (paired surrogates), inner spaces and joiners", async () => {
    const key = await createKey("team-text", "carol");
    for (const name of ["Städte 🌍", "مدن", "नगर\u200dसूची", "東京 データ", "a\u200bb"]) {
      const created = await createDataset(key, CSV, { name, properties: { description: "line one\nline two" } });
      expect(created.name).toBe(name);
    }
  });
});
