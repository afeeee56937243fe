// The twin build's pipeline (src/columnar/build.ts): a new part's last writes, completion and D1
// row run while the next segment is encoded, never more than one part behind, and the tail made
// from the parts' metadata as they come is the one made from the stored parts.
import { env } from "cloudflare:workers";
import { parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { buildTwin } from "../src/columnar/build.ts";
import { getTwinState } from "../src/columnar/store.ts";
import { writeTail } from "../src/columnar/parquet/index.ts";
import { readStoredPartMetadata } from "../src/columnar/part-metadata-read.ts";
import { limitsFrom, storageTimingsFrom } from "../src/config.ts";
import type { TableSchema } from "../src/schema/table-schema.ts";
import { csvPart, collectionPart, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { recordingAfterCommit, signedFetch, twinPartRows, wrapBinding } from "./helpers/storage.ts";

const HEADER = "id,amount,label\n";
const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${from + i},${(from + i) / 4},label ${(from + i) % 97}\n`).join("");

/**
 * The worker's R2 binding, logging each segment read as it starts and each part object as it is
 * stored; a part's store is held until the next segment's read starts (or 2 s pass), so a build
 * that waits for a part before reading on shows as a store before the next read.
 */
function gatedBucket(segmentKeys: readonly string[]): { bucket: R2Bucket; events: string[] } {
  const events: string[] = [];
  let readStarted: (() => void) | null = null;
  const bucket = wrapBinding(env.CONTENT, {
    get: (key: string, options?: R2GetOptions) => {
      const index = segmentKeys.indexOf(key);
      if (index >= 0) {
        events.push(`read ${index}`);
        readStarted?.();
      }
      return env.CONTENT.get(key, options);
    },
    put: async (key: string, value: Uint8Array) => {
      if (key.includes("/parquet/")) {
        await Promise.race([new Promise<void>((resolve) => (readStarted = resolve)), new Promise((resolve) => setTimeout(resolve, 2000))]);
        readStarted = null;
      }
      const stored = await env.CONTENT.put(key, value);
      if (key.includes("/parquet/")) events.push("stored");
      return stored;
    },
  });
  return { bucket, events };
}

describe("the twin build's pipeline", () => {
  it("stores a part while the next segment is encoded, one part behind at most, and its tail is the stored parts'", async () => {
    const key = await createKey("team-pipeline", "pia");
    const recorder = recordingAfterCommit();
    const created = await signedFetch(recorder.env, "POST", "/v1/dataset", key, { parts: [collectionPart({ name: "pipeline", visibility: "public" }), csvPart(HEADER + rows(0, 300))] });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    let latest = "";
    for (const from of [300, 500, 700]) {
      const appended = await signedFetch(recorder.env, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(rows(from, 200))] });
      expect(appended.status).toBe(201);
      latest = ((await appended.json()) as { version: string }).version;
    }
    // No message handled: no part exists, so the latest version's build encodes all four segments.
    const segments = await env.DB.prepare("SELECT segment_key FROM version_segments WHERE version_id = ? ORDER BY position").bind(latest).all<{ segment_key: string }>();
    const segmentKeys = segments.results.map((row) => row.segment_key);
    expect(segmentKeys).toHaveLength(4);
    const gated = gatedBucket(segmentKeys);
    expect(await buildTwin({ DB: env.DB, CONTENT: gated.bucket }, id, latest, storageTimingsFrom(limitsFrom(env)))).toBe("built");
    // Each part is stored after the next segment's read began, and before the one after it.
    expect(gated.events).toEqual(["read 0", "read 1", "stored", "read 2", "stored", "read 3", "stored", "stored"]);

    const parts = await twinPartRows(latest);
    expect(parts).toHaveLength(4);
    const schema = (await (await send("GET", `/v1/dataset/${id}/${latest}/schema`)).json()) as TableSchema;
    const stored = await getTwinState(env.DB, latest);
    const tail = writeTail(schema, await Promise.all(stored!.parts.map((part) => readStoredPartMetadata(env.CONTENT, part))));
    const file = new Uint8Array(await (await send("GET", `/v1/dataset/${id}/${latest}/data.parquet`)).arrayBuffer());
    expect(file.subarray(file.length - tail.length)).toEqual(tail);
    expect(stored!.tailBytes).toBe(tail.length);
    const read = await parquetReadObjects({ file: file.buffer, columns: ["id"] });
    expect(read.map((r) => Number(r.id))).toEqual(Array.from({ length: 900 }, (_, i) => i));
  });
});
