// docs/edge-and-caching.md: a record's ETag is accepted by If-Match, so the standard GET-then-conditional-PUT
// works; a stale one still gets 412.
import { describe, expect, it } from "vitest";
import { createKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, expectProblem, send, write } from "./helpers/http.ts";

describe("If-Match with a record's ETag", () => {
  it("is the quoted version id, latest or explicit, signed or not", async () => {
    const key = await createKey("ifmatch-team", "ifmatch-etag");
    const d = await createDataset(key, "a\n1\n", { name: "etag", visibility: "public" });
    for (const path of [`/v1/dataset/${d.id}`, `/v1/dataset/${d.id}/${d.version}`]) {
      expect((await send("GET", path)).headers.get("etag")).toBe(`"${d.version}"`);
      expect((await send("GET", path, { key })).headers.get("etag")).toBe(`"${d.version}"`);
    }
  });

  it("GET then PUT with the ETag lands; a second PUT with the same ETag gets 412", async () => {
    const key = await createKey("ifmatch-team", "ifmatch-put");
    const d = await createDataset(key, "a\n1\n", { name: "before" });
    const etag = (await send("GET", `/v1/dataset/${d.id}`, { key })).headers.get("etag")!;
    const put = await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ name: "after" })], { "If-Match": etag });
    expect(put.status).toBe(200);
    await expectProblem(await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ name: "again" })], { "If-Match": etag }), 412, "precondition_failed");
    const fresh = (await send("GET", `/v1/dataset/${d.id}`, { key })).headers.get("etag")!;
    expect((await appendRows(key, d.id, "2\n", { "If-Match": fresh })).status).toBe(201);
  });
});
