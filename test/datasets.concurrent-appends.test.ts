// docs/api.md#who-sees-what and issue 11: many writers appending to one dataset at once all land, none gets 409,
// and the versions form one linear chain, each acknowledged append its own version, through the
// dataset's append sequencer (group commit).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { appendRows, createDataset, gunzipText, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

describe("concurrent appends to one dataset", { timeout: 120_000 }, () => {
  it("20 writers × 5 appends: every append 201, one linear chain, every row exactly once", async () => {
    const key = await createKey("team-concurrent", "writers");
    const created = await createDataset(key, "writer,n\n");
    const writers = Array.from({ length: 20 }, async (_, w) => {
      const versions: string[] = [];
      for (let n = 0; n < 5; n++) {
        const response = await appendRows(key, created.id, `${w},${n}\n`);
        const text = await response.text();
        expect(response.status, text).toBe(201);
        versions.push((JSON.parse(text) as { version: string }).version);
      }
      return versions;
    });
    const acknowledged = (await Promise.all(writers)).flat();
    expect(new Set(acknowledged).size).toBe(100);

    const { results } = await env.DB.prepare("SELECT id, seq, parent_id FROM versions WHERE dataset_id = ? ORDER BY seq")
      .bind(created.id)
      .all<{ id: string; seq: number; parent_id: string | null }>();
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    results.forEach((r, i) => expect(r.parent_id).toBe(i === 0 ? null : results[i - 1]!.id));
    expect(new Set(results.slice(1).map((r) => r.id))).toEqual(new Set(acknowledged));

    const csv = await gunzipText(await send("GET", `/v1/dataset/${created.id}/latest/data.csv.gz`, { key }));
    const lines = csv.trimEnd().split("\n");
    expect(lines[0]).toBe("writer,n");
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `${Math.floor(i / 5)},${i % 5}`).sort());
    // Each writer's own rows are in the order it appended them.
    for (let w = 0; w < 20; w++) {
      const mine = lines.filter((l) => l.startsWith(`${w},`));
      expect(mine).toEqual([0, 1, 2, 3, 4].map((n) => `${w},${n}`));
    }
  });
});
