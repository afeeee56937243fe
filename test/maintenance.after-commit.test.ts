// Issue 27, item 6: compaction once ran inside the append sequencer, so the next append's answer
// waited for it (4–6 s after a large upload). Now an append only enqueues the work on the
// AFTER_COMMIT queue (src/maintenance/after-commit.ts), after its answer; the consumer does it.
// The producer is recorded at that boundary; the consumer is the worker's own queue handler.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index.ts";
import { APPEND_TWIN_DELAY_SECONDS } from "../src/maintenance/after-commit.ts";
import { DEFAULT_MERGE_POLICY, planMerge } from "../src/storage/compaction-plan.ts";
import { getVersionSegments } from "../src/storage/datasets-db.ts";
import { createDataset, send } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";
import { appendWith, recordingAfterCommit } from "./helpers/storage.ts";

const sizes = async (version: string) => (await getVersionSegments(env.DB, version)).map((s) => s.compressedBytes);

describe("work after an append's commit", () => {
  it("is enqueued after the answer, not done on its path; the queue consumer compacts", async () => {
    const key = await createKey("team-after-commit", "alice");
    const created = await createDataset(key, "n,text\n0,zero\n", { name: "after commit" });
    const { env: recording, sent, delays } = recordingAfterCommit();
    const versions: string[] = [];
    let expected = "n,text\n0,zero\n";
    for (let i = 1; i <= 6; i++) {
      const response = await appendWith(recording, key, created.id, `${i},row ${i}\n`);
      expect(response.status).toBe(201);
      versions.push(((await response.json()) as { version: string }).version);
      expected += `${i},row ${i}\n`;
    }
    // Each append: its compaction, then its Parquet twin (built over the merged segments).
    expect(sent).toEqual(versions.flatMap((versionId) => [{ kind: "compact", datasetId: created.id, versionId }, { kind: "parquet", datasetId: created.id, versionId }]));
    // The twin's message waits, so that a burst's older versions find a newer one and skip.
    expect(delays).toEqual(versions.flatMap(() => [undefined, APPEND_TWIN_DELAY_SECONDS]));
    const latest = versions[versions.length - 1]!;
    // Every answer and its waitUntil work are done, and nothing compacted the list.
    expect(planMerge(await sizes(latest), DEFAULT_MERGE_POLICY)).not.toBeNull();

    const batch = createMessageBatch("pubset-after-commit", sent.map((body, i) => ({ id: `m${i}`, timestamp: Date.now(), attempts: 1, body })));
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(sent.map((_, i) => `m${i}`).sort());
    const after = await sizes(latest);
    expect(planMerge(after, DEFAULT_MERGE_POLICY)).toBeNull();
    expect(after.length).toBeLessThan(versions.length + 1);
    const csv = await send("GET", `/v1/dataset/${created.id}/${latest}/data.csv`, { key, headers: { "Accept-Encoding": "identity" } });
    expect(await csv.text()).toBe(expected);
  });

  it("compacts the dataset's latest version even when every message is older than it, as under a stream of appends", async () => {
    const key = await createKey("team-after-commit", "bob");
    const created = await createDataset(key, "n,text\n0,zero\n", { name: "stream" });
    const { env: recording, sent } = recordingAfterCommit();
    for (let i = 1; i <= 12; i++) expect((await appendWith(recording, key, created.id, `${i},row ${i}\n`)).status).toBe(201);
    // One more append commits before the consumer runs: every recorded message is now superseded.
    const last = await appendWith(recordingAfterCommit().env, key, created.id, "13,row 13\n");
    const latest = ((await last.json()) as { version: string }).version;
    expect(planMerge(await sizes(latest), DEFAULT_MERGE_POLICY)).not.toBeNull();
    const compacts = sent.filter((body) => (body as { kind: string }).kind === "compact");
    const batch = createMessageBatch("pubset-after-commit", compacts.map((body, i) => ({ id: `c${i}`, timestamp: Date.now(), attempts: 1, body })));
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(compacts.length);
    const after = await sizes(latest);
    expect(planMerge(after, DEFAULT_MERGE_POLICY)).toBeNull();
    expect(after.length).toBeLessThan(8);
    const csv = await send("GET", `/v1/dataset/${created.id}/${latest}/data.csv`, { key, headers: { "Accept-Encoding": "identity" } });
    expect(await csv.text()).toBe("n,text\n0,zero\n" + Array.from({ length: 13 }, (_, i) => `${i + 1},row ${i + 1}\n`).join(""));
  });

  it("puts twin builds on their own queue, which is not batched, and compactions on the batched one", async () => {
    const key = await createKey("team-after-commit", "carol");
    const compactions = recordingAfterCommit();
    const twins = recordingAfterCommit();
    const split: Env = { ...env, AFTER_COMMIT: compactions.env.AFTER_COMMIT, TWINS: twins.env.TWINS };
    const created = await createDataset(key, "n,text\n0,zero\n", { name: "two queues" });
    const response = await appendWith(split, key, created.id, "1,one\n");
    expect(response.status).toBe(201);
    const { version } = (await response.json()) as { version: string };
    expect(compactions.sent).toEqual([{ kind: "compact", datasetId: created.id, versionId: version }]);
    expect(twins.sent).toEqual([{ kind: "parquet", datasetId: created.id, versionId: version }]);
    expect(twins.delays).toEqual([APPEND_TWIN_DELAY_SECONDS]);
  });

  it("acknowledges a malformed message without doing anything", async () => {
    const batch = createMessageBatch("pubset-after-commit", [{ id: "bad", timestamp: Date.now(), attempts: 1, body: { kind: "unknown" } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["bad"]);
  });
});
