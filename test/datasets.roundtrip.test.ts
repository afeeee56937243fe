// Property-style round trip through the real worker: seeded random tables with quotes,
// commas and CR/LF inside fields → create + appends → download → the exact bytes uploaded,
// read by DecompressionStream and by fflate.
import { gunzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { appendRows, createDataset, download, send } from "./helpers/http.ts";
import { encodeRows, mulberry32, randomInt, randomTable } from "./helpers/random.ts";

describe("create + appends → download round trip", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}`, async () => {
      const random = mulberry32(seed);
      const key = await createKey("roundtrip", `user-${seed}`);
      const columns = randomInt(random, 1, 6);
      const eol = random() < 0.5 ? "\n" : "\r\n";
      const header = Array.from({ length: columns }, (_, i) => `col_${i}`);
      let expected = encodeRows([header, ...randomTable(random, columns, randomInt(random, 0, 30))], eol, random);
      const created = await createDataset(key, expected, { name: `rt-${seed}` });
      let version = created.version;
      const appends = randomInt(random, 1, 4);
      for (let i = 0; i < appends; i++) {
        let chunk = encodeRows(randomTable(random, columns, randomInt(random, 1, 20)), eol, random);
        if (random() < 0.3) chunk = chunk.slice(0, -eol.length); // no final line break
        const response = await appendRows(key, created.id, chunk);
        expect(response.status, await response.clone().text()).toBe(201);
        version = ((await response.json()) as { version: string }).version;
        if (!expected.endsWith("\n")) expected += eol;
        expected += chunk;
      }
      const gz = await download(`/v1/dataset/${created.id}/${version}/data.csv.gz`, key);
      expect(gz.status).toBe(200);
      const bytes = new Uint8Array(await gz.arrayBuffer());
      expect(new TextDecoder().decode(gunzipSync(bytes))).toBe(expected);
      const viaStream = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
      expect(viaStream).toBe(expected);
      const plain = await send("GET", `/v1/dataset/${created.id}/${version}/data.csv`, { key });
      expect(plain.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(await plain.text()).toBe(expected);
    });
  }
});
