// DELETE /v1/dataset/:id (docs/api.md): 204, then every path of the dataset answers 404, its D1 rows
// and R2 objects are gone; only the owning team may delete, and only with a signature.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { appendRows, collectionPart, createDataset, expectProblem, send, write } from "./helpers/http.ts";
import { runCleanup } from "../src/maintenance/cleanup.ts";
import { TIMINGS } from "./helpers/storage.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";

let alice: TestKey;
let bob: TestKey;
let carol: TestKey;

beforeAll(async () => {
  alice = await createKey("del-team", "del-alice");
  bob = await createKey("del-team", "del-bob");
  carol = await createKey("del-other", "del-carol");
});

/** The dataset's content objects; its Parquet twins are built in the background and counted apart (test/columnar.twin.test.ts). */
async function objectKeys(id: string): Promise<string[]> {
  const listed = await env.CONTENT.list({ prefix: `datasets/${id}/` });
  return listed.objects.map((o) => o.key).filter((key) => !key.startsWith(`datasets/${id}/parquet/`));
}

async function rowCounts(id: string): Promise<Record<string, number>> {
  const count = async (sql: string) => (await env.DB.prepare(sql).bind(id).first<{ n: number }>())?.n ?? -1;
  return {
    datasets: await count("SELECT COUNT(*) AS n FROM datasets WHERE id = ?"),
    versions: await count("SELECT COUNT(*) AS n FROM versions WHERE dataset_id = ?"),
    segments: await count("SELECT COUNT(*) AS n FROM segments WHERE dataset_id = ?"),
    versionSegments: await count(
      "SELECT COUNT(*) AS n FROM version_segments WHERE version_id IN (SELECT id FROM versions WHERE dataset_id = ?)",
    ),
    search: await count("SELECT COUNT(*) AS n FROM search_docs WHERE dataset_id = ?"),
  };
}

const remove = (id: string, key?: TestKey) => send("DELETE", `/v1/dataset/${id}`, { key });

describe("DELETE /v1/dataset/:id", () => {
  it("204 with no body; then every path of it is 404, its rows and objects gone", async () => {
    const created = await createDataset(alice, "city,pop\nBern,134000", { name: "Delwords capitals", visibility: "public", properties: { key_words: ["delwords"] } }, "capitals.csv");
    const appended = await appendRows(alice, created.id, "Basel,173000\n");
    expect(appended.status).toBe(201);
    const v2 = ((await appended.json()) as { version: string }).version;
    expect((await write("PUT", `/v1/dataset/${created.id}`, alice, [collectionPart({ name: "Delwords renamed" })])).status).toBe(200);
    const objectsBefore = await objectKeys(created.id);
    expect(objectsBefore.length).toBeGreaterThanOrEqual(2);
    const before = await send("GET", `/v1/dataset?q=delwords`);
    expect(((await before.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id)).toContain(created.id);

    const id = created.id;
    const paths = [
      `/v1/dataset/${id}`,
      `/v1/dataset/${id}/latest`,
      `/v1/dataset/${id}/${created.version}`,
      `/v1/dataset/${id}/${v2}`,
      created.source,
      created.source.slice(0, -3),
      `/v1/dataset/${id}/latest/capitals.csv.gz`,
      `/v1/dataset/${id}/latest/capitals.csv`,
      `/v1/dataset/${id}/versions`,
      `/v1/dataset/${id}/latest/rows?offset=0&limit=10`,
    ];
    for (const path of paths) {
      const read = await send("GET", path);
      await read.arrayBuffer();
      expect(read.status, path).toBe(200);
    }

    const response = await remove(id, alice);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    for (const key of [undefined, alice]) {
      for (const path of paths) await expectProblem(await send("GET", path, { key }), 404, "not_found");
      for (const query of ["?limit=1000", "?team=del-team", "?q=delwords", "?q=delwords&team=del-team"]) {
        const listed = await send("GET", `/v1/dataset${query}`, { key });
        expect(listed.status).toBe(200);
        expect(((await listed.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id)).not.toContain(id);
      }
    }
    await expectProblem(await appendRows(alice, id, "Genf,203000\n"), 404, "not_found");
    await expectProblem(await write("PUT", `/v1/dataset/${id}`, alice, [collectionPart({ name: "back" })]), 404, "not_found");
    expect(await rowCounts(id)).toEqual({ datasets: 0, versions: 0, segments: 0, versionSegments: 0, search: 0 });
    // Objects are recorded for the clean-up, which deletes them once downloads under way have ended.
    const recorded = await env.DB.prepare("SELECT key FROM pending_objects WHERE dataset_id = ? AND reason = 'deleted'").bind(id).all<{ key: string }>();
    expect(recorded.results.map((r) => r.key).filter((key) => !key.includes("/parquet/")).sort()).toEqual(objectsBefore.sort());
    await runCleanup(env, Date.now() + TIMINGS.readGraceMs + 60_000);
    expect(await objectKeys(id)).toEqual([]);
  });

  it("a teammate may delete; other datasets are untouched", async () => {
    const kept = await createDataset(alice, "a\n1\n", { name: "kept" });
    const gone = await createDataset(alice, "a\n1\n", { name: "gone" });
    expect((await remove(gone.id, bob)).status).toBe(204);
    expect((await send("GET", `/v1/dataset/${kept.id}`, { key: alice })).status).toBe(200);
    expect((await send("GET", kept.source, { key: alice })).status).toBe(200);
    expect((await objectKeys(kept.id)).length).toBe(1);
  });

  it("deleting twice → 404", async () => {
    const d = await createDataset(alice, "a\n1\n", { name: "twice" });
    expect((await remove(d.id, alice)).status).toBe(204);
    await expectProblem(await remove(d.id, alice), 404, "not_found");
  });
});

describe("DELETE /v1/dataset/:id refusals change nothing", () => {
  it("another team: 404 for a private dataset, 403 for a public one", async () => {
    for (const [visibility, status, code] of [["private", 404, "not_found"], ["public", 403, "forbidden"]] as const) {
      const d = await createDataset(alice, "a\n1\n", { name: `theirs-${visibility}`, visibility });
      await expectProblem(await remove(d.id, carol), status, code);
      expect((await send("GET", `/v1/dataset/${d.id}`, { key: alice })).status).toBe(200);
      expect((await objectKeys(d.id)).length).toBe(1);
    }
  });

  it("unsigned → 401 signature_required", async () => {
    const d = await createDataset(alice, "a\n1\n", { name: "unsigned", visibility: "public" });
    await expectProblem(await remove(d.id), 401, "signature_required");
    expect((await send("GET", `/v1/dataset/${d.id}`)).status).toBe(200);
  });

  it("a tampered signature → 401, a missing dataset → 404, a bad id → 400", async () => {
    const d = await createDataset(alice, "a\n1\n", { name: "tampered" });
    const tampered = await send("DELETE", `/v1/dataset/${d.id}`, {
      key: alice,
      tamper: (headers) => headers.set("Signature", "sig1=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:"),
    });
    await expectProblem(tampered, 401, "signature_invalid");
    expect((await send("GET", `/v1/dataset/${d.id}`, { key: alice })).status).toBe(200);
    await expectProblem(await remove(crypto.randomUUID(), alice), 404, "not_found");
    await expectProblem(await remove("not-a-uuid", alice), 400, "invalid_request");
  });

  it("DELETE elsewhere → 405 whose Allow lists it only on the dataset", async () => {
    const d = await createDataset(alice, "a\n1\n", { name: "allow" });
    const patch = await send("PATCH", `/v1/dataset/${d.id}`, { key: alice });
    expect(patch.headers.get("allow")).toContain("DELETE");
    await expectProblem(patch, 405, "method_not_allowed");
    const onVersion = await send("DELETE", `/v1/dataset/${d.id}/${d.version}`, { key: alice });
    expect(onVersion.headers.get("allow")).not.toContain("DELETE");
    await expectProblem(onVersion, 405, "method_not_allowed");
  });
});
