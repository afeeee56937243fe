// The visibility matrix (docs/api.md, docs/api.md#errors): anonymous / same team / other team × public / private
// × every endpoint. What a caller may not see is indistinguishable from what does not exist.
import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, send, write } from "./helpers/http.ts";

let owner: TestKey;
let teammate: TestKey;
let outsider: TestKey;
const datasets: Record<"public" | "private", { id: string; version: string; source: string }> = {} as never;

beforeAll(async () => {
  owner = await createKey("vis-team", "vis-owner");
  teammate = await createKey("vis-team", "vis-mate");
  outsider = await createKey("vis-other", "vis-outsider");
  datasets.public = await createDataset(owner, "a\n1\n", { name: "pub", visibility: "public" });
  datasets.private = await createDataset(owner, "a\n1\n", { name: "priv", visibility: "private" });
});

type Caller = "anonymous" | "teammate" | "outsider";
const keyOf = (caller: Caller) => (caller === "anonymous" ? undefined : caller === "teammate" ? teammate : outsider);

const readPaths: Array<[string, (d: { id: string; version: string; source: string }) => string]> = [
  ["get latest", (d) => `/v1/dataset/${d.id}`],
  ["get version", (d) => `/v1/dataset/${d.id}/${d.version}`],
  ["get latest alias", (d) => `/v1/dataset/${d.id}/latest`],
  ["download gzip", (d) => d.source],
  ["download csv", (d) => d.source.slice(0, -3)],
];

describe.each(["anonymous", "teammate", "outsider"] as const)("%s reader", (caller) => {
  for (const visibility of ["public", "private"] as const) {
    const visible = visibility === "public" || caller === "teammate";
    for (const [label, path] of readPaths) {
      it(`${label} of a ${visibility} dataset → ${visible ? 200 : 404}`, async () => {
        const response = await send("GET", path(datasets[visibility]), { key: keyOf(caller) });
        expect(response.status).toBe(visible ? 200 : 404);
        if (!visible) expect(((await response.json()) as { code: string }).code).toBe("not_found");
      });
    }
    it(`list of a ${visibility} dataset ${visible ? "shows" : "hides"} it`, async () => {
      const query = caller === "outsider" ? "?team=vis-team" : caller === "anonymous" ? "?limit=1000" : "";
      const response = await send("GET", `/v1/dataset${query}`, { key: keyOf(caller) });
      expect(response.status).toBe(200);
      const ids = ((await response.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id);
      expect(ids.includes(datasets[visibility].id)).toBe(visible);
    });
  }
});

describe("writes by another team", () => {
  it("append/PUT on a private dataset of another team → 404, on a public one → 403", async () => {
    for (const [visibility, status] of [["private", 404], ["public", 403]] as const) {
      const d = datasets[visibility];
      expect((await appendRows(outsider, d.id, "2\n")).status).toBe(status);
      expect((await write("PUT", `/v1/dataset/${d.id}`, outsider, [collectionPart({ name: "hijack" })])).status).toBe(status);
    }
  });

  it("a teammate may write", async () => {
    const response = await write("POST", `/v1/dataset/${datasets.private.id}`, teammate, [csvPart("2\n")]);
    expect(response.status).toBe(201);
  });

  it("making a dataset private hides every version", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "soon private", visibility: "public" });
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(200);
    await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ visibility: "private" })]);
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`)).status).toBe(404);
    expect((await send("GET", d.source)).status).toBe(404);
    expect((await send("GET", `/v1/dataset/${d.id}/${d.version}`, { key: teammate })).status).toBe(200);
  });
});
