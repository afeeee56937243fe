// Regression (issue 10): a `.csv` download negotiated to `Content-Encoding: gzip` must carry the
// stored gzip exactly once, on the first request and on every later one served from the cache.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { createDataset, send } from "./helpers/http.ts";

async function gunzipBytes(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Response(bytes).body!.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;

describe("cached CSV downloads with Accept-Encoding: gzip", () => {
  it("are gzip once, twice in a row, like a browser clicking Download CSV twice", async () => {
    const key = await createKey("cache-gzip-team", "cache-gzip");
    const csv = "city,country\nLagos,Nigeria\n";
    const d = await createDataset(key, csv, { name: "gzip once", visibility: "public" });
    for (const path of [`/v1/dataset/${d.id}/${d.version}/data.csv`, `/v1/dataset/${d.id}/latest/data.csv`]) {
      for (let click = 0; click < 3; click++) {
        const response = await send("GET", path, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
        expect(response.status).toBe(200);
        const raw = new Uint8Array(await response.arrayBuffer());
        // Whether or not the transport already undid Content-Encoding, at most one gzip layer
        // may remain; a second one is the bug.
        const body = isGzip(raw) ? await gunzipBytes(raw) : raw;
        expect(isGzip(body), `click ${click + 1} on ${path} is gzip inside gzip`).toBe(false);
        expect(new TextDecoder().decode(body)).toBe(csv);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
});
