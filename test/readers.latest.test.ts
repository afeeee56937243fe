// `latest` in place of `:version` (docs/api.md) in every version path — record, both downloads and
// rows — always names the newest version, moves with each write, and obeys visibility.
import { beforeAll, describe, expect, it } from "vitest";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendRows, collectionPart, createDataset, csvPart, expectProblem, gunzipText, send, write } from "./helpers/http.ts";

let owner: TestKey;
let outsider: TestKey;

beforeAll(async () => {
  owner = await createKey("rl-team", "rl-owner");
  outsider = await createKey("rl-other", "rl-outsider");
});

async function ok(response: Response): Promise<Response> {
  if (response.status !== 200 && response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
  return response;
}

async function versionOf(response: Response): Promise<string> {
  return ((await (await ok(response)).json()) as { version: string }).version;
}

/** What each `latest` path answers, for comparison with the same path under a version id. */
async function readAll(id: string, ref: string) {
  const record = (await (await ok(await send("GET", `/v1/dataset/${id}/${ref}`))).json()) as Record<string, unknown>;
  const gzip = await gunzipText(await ok(await send("GET", `/v1/dataset/${id}/${ref}/cities.csv.gz`)));
  const csv = await (await ok(await send("GET", `/v1/dataset/${id}/${ref}/cities.csv`))).text();
  const rows = (await (await ok(await send("GET", `/v1/dataset/${id}/${ref}/rows`))).json()) as Record<string, unknown>;
  return { record, gzip, csv, rows };
}

describe("latest", () => {
  it("names the newest version in get, download (.gz and csv) and rows, after each write", { timeout: 30_000 }, async () => {
    const d = await createDataset(owner, "city\nOslo\n", { name: "cities", visibility: "public" }, "cities.csv");
    const first = await readAll(d.id, "latest");
    expect(first).toEqual(await readAll(d.id, d.version));
    expect(first.record.version).toBe(d.version);
    expect(first.gzip).toBe("city\nOslo\n");
    const citySchema = { fields: [{ name: "city", type: "string" }], missingValues: [""] };
    expect(first.rows).toEqual({ columns: ["city"], schema: citySchema, rows: [["Oslo"]], offset: 0, total: 1, matched: 1, partial: false });

    const v2 = await versionOf(await appendRows(owner, d.id, "Bergen"));
    const second = await readAll(d.id, "latest");
    expect(second).toEqual(await readAll(d.id, v2));
    expect(second.record.version).toBe(v2);
    expect(second.csv).toBe("city\nOslo\nBergen");
    expect(second.rows).toEqual({ columns: ["city"], schema: citySchema, rows: [["Oslo"], ["Bergen"]], offset: 0, total: 2, matched: 2, partial: false });

    const v3 = await versionOf(await write("PUT", `/v1/dataset/${d.id}`, owner, [csvPart("name,pop\nLagos,15388000\n", "cities.csv")]));
    const third = await readAll(d.id, "latest");
    expect(third).toEqual(await readAll(d.id, v3));
    expect(third.gzip).toBe("name,pop\nLagos,15388000\n");
    const popSchema = { fields: [{ name: "name", type: "string" }, { name: "pop", type: "integer" }], missingValues: [""] };
    expect(third.rows).toEqual({ columns: ["name", "pop"], schema: popSchema, rows: [["Lagos", 15388000]], offset: 0, total: 1, matched: 1, partial: false });
    expect(await readAll(d.id, d.version)).toEqual(first);
  });

  it("the unversioned GET and GET …/latest answer the same record", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "same", visibility: "public" });
    await versionOf(await write("PUT", `/v1/dataset/${d.id}`, owner, [collectionPart({ name: "renamed" })]));
    const plain = await (await ok(await send("GET", `/v1/dataset/${d.id}`))).json();
    const latest = await (await ok(await send("GET", `/v1/dataset/${d.id}/latest`))).json();
    expect(latest).toEqual(plain);
    expect((latest as { name: string }).name).toBe("renamed");
  });

  it("is not a version in the version list's path, and follows visibility like a version id", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "hidden latest", visibility: "private" }, "cities.csv");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/latest/versions`, { key: owner }), 404, "not_found");
    for (const suffix of ["", "/cities.csv.gz", "/cities.csv", "/rows"]) {
      const path = `/v1/dataset/${d.id}/latest${suffix}`;
      await ok(await send("GET", path, { key: owner }));
      await expectProblem(await send("GET", path), 404, "not_found");
      await expectProblem(await send("GET", path, { key: outsider }), 404, "not_found");
    }
  });

  it("a wrong file name under latest is 404, like under a version id", async () => {
    const d = await createDataset(owner, "a\n1\n", { name: "file names", visibility: "public" }, "cities.csv");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/latest/other.csv`), 404, "not_found");
    await expectProblem(await send("GET", `/v1/dataset/${d.id}/latest/cities.csv.gz.gz`), 404, "not_found");
  });
});
