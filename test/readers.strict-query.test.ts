// docs/edge-and-caching.md "strict queries": record, download and rows paths take no unknown query parameters,
// so `?x=<random>` cannot skip the cache and cost a full R2 read.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { createDataset, expectProblem, send } from "./helpers/http.ts";

describe("unknown query parameters", () => {
  it("are 400 invalid_query on record, download and rows paths, signed or not", async () => {
    const key = await createKey("strict-team", "strict-user");
    const d = await createDataset(key, "a\n1\n", { name: "strict", visibility: "public" });
    const paths = [
      `/v1/dataset/${d.id}`,
      `/v1/dataset/${d.id}/${d.version}`,
      `/v1/dataset/${d.id}/latest`,
      d.source,
      d.source.slice(0, -3),
      `/v1/dataset/${d.id}/${d.version}/rows`,
      `/v1/dataset/${d.id}/latest/rows`,
    ];
    for (const path of paths) {
      expect((await send("GET", path)).status).toBe(200);
      await expectProblem(await send("GET", `${path}?x=${crypto.randomUUID()}`), 400, "invalid_query");
      await expectProblem(await send("GET", `${path}?x=1`, { key }), 400, "invalid_query");
    }
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}/rows?offset=0&limit=1`)).status).toBe(200);
  });
});
