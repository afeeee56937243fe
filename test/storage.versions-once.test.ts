// docs/storage-protocol.md: a version names its header and its properties, stored once per distinct value, so
// the D1 bytes of a version do not grow with the header's width; a header too wide for D1 is
// refused with 413 as soon as it is read, and every read answers what it answered before.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { collectionPart, createDataset, csvPart, expectProblem, send, write } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { NO_AUTO_COMPACTION, appendWith } from "./helpers/storage.ts";

const count = async (sql: string, ...params: string[]) => (await env.DB.prepare(sql).bind(...params).first<{ n: number }>())?.n ?? -1;

describe("versions stored by reference", () => {
  it("appends and renames reuse the header; a property change adds one property set; reads are unchanged", async () => {
    const key = await createKey("team-once", "alice");
    const columns = Array.from({ length: 400 }, (_, i) => `a_rather_long_column_name_${i}`);
    const row = (n: number) => columns.map((_, i) => String(n * 1000 + i)).join(",") + "\n";
    const created = await createDataset(key, columns.join(",") + "\n" + row(0), { name: "wide", properties: { description: "one" } });
    const headersBefore = await count("SELECT COUNT(*) AS n FROM headers");
    const setsBefore = await count("SELECT COUNT(*) AS n FROM property_sets");
    for (let n = 1; n <= 5; n++) expect((await appendWith(NO_AUTO_COMPACTION, key, created.id, row(n))).status).toBe(201);
    expect((await write("PUT", `/v1/dataset/${created.id}`, key, [collectionPart({ name: "renamed" })])).status).toBe(200);
    expect(await count("SELECT COUNT(*) AS n FROM headers")).toBe(headersBefore);
    expect(await count("SELECT COUNT(*) AS n FROM property_sets")).toBe(setsBefore);
    expect((await write("PUT", `/v1/dataset/${created.id}`, key, [collectionPart({ properties: { description: "two" } })])).status).toBe(200);
    expect(await count("SELECT COUNT(*) AS n FROM property_sets")).toBe(setsBefore + 1);
    expect(await count("SELECT COUNT(DISTINCT header_id) AS n FROM versions WHERE dataset_id = ?", created.id)).toBe(1);

    // The version rows themselves hold no header: a few hundred bytes each, whatever the width.
    const widest = await env.DB.prepare(
      `SELECT MAX(length(id) + length(dataset_id) + length(COALESCE(parent_id, '')) + length(created) + length(name) + length(file_name)
         + length(header_id) + length(properties_id)) AS n FROM versions WHERE dataset_id = ?`,
    )
      .bind(created.id)
      .first<{ n: number }>();
    expect(widest!.n).toBeLessThan(400);
    expect(JSON.stringify(columns).length).toBeGreaterThan(10_000);

    const versions = (await (await send("GET", `/v1/dataset/${created.id}/versions`, { key })).json()) as { results: Array<{ columns: string[] }> };
    expect(versions.results).toHaveLength(8);
    for (const v of versions.results) expect(v.columns).toEqual(columns);
    const first = (await (await send("GET", `/v1/dataset/${created.id}/${created.version}`, { key })).json()) as { properties: unknown; name: string };
    expect(first).toMatchObject({ name: "wide", properties: { description: "one" } });
    const latest = (await (await send("GET", `/v1/dataset/${created.id}`, { key })).json()) as { properties: unknown; name: string };
    expect(latest).toMatchObject({ name: "renamed", properties: { description: "two" } });
  });

  it("a header too large to store is refused with 413 before the upload is processed; nothing is created", async () => {
    const key = await createKey("team-once", "bob");
    // 400,000 control characters: 400 KB in the file, 2.4 MB once escaped as JSON.
    const header = "\u0001".repeat(400_000) + ",b\n";
    const rows = "1,2\n".repeat(100_000);
    const datasetsBefore = await count("SELECT COUNT(*) AS n FROM datasets");
    const body = await expectProblem(
      await write("POST", "/v1/dataset", key, [collectionPart({ name: "too wide" }), csvPart(header + rows)]),
      413,
      "payload_too_large",
    );
    expect(body).toMatchObject({ limit: "MAX_HEADER_JSON_BYTES", row: 1 });
    expect(await count("SELECT COUNT(*) AS n FROM datasets")).toBe(datasetsBefore);
  });
});
