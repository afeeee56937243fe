// docs/edge-and-caching.md edge cache purges: a dataset leaving public view enqueues its tag (and `catalog`) in
// a D1 outbox, in the same transaction; the scheduled drain empties it through the purge
// interface within the platform's budget (≤ 5 requests a run, ≤ 100 tags each), coalescing and
// never dropping. The calls are asserted at the interface: Workers Cache's `ctx.cache.purge`
// does not exist in workerd.
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { PURGE_CRON, drainPurgeOutbox, purgerFor, runPurgeDrain, workersCachePurger, type Purger } from "../src/edge/purge-outbox.ts";
import worker from "../src/index.ts";
import { collectionPart, createDataset, send, write } from "./helpers/http.ts";
import { createKey } from "./helpers/keys.ts";

interface Row {
  tag: string;
  seq: number;
  attempts: number;
}

async function outbox(): Promise<Row[]> {
  return (await env.DB.prepare("SELECT tag, seq, attempts FROM purge_outbox ORDER BY tag").all<Row>()).results;
}

function recorder(fail: (call: number) => boolean = () => false, during?: (tags: string[]) => Promise<void>) {
  const calls: string[][] = [];
  const purger: Purger = {
    name: "recorder",
    async purge(tags) {
      calls.push(tags);
      await during?.(tags);
      return fail(calls.length) ? { ok: false, detail: "rate limited" } : { ok: true };
    },
  };
  return { calls, purger };
}

async function enqueue(count: number, prefix = "t"): Promise<string[]> {
  const tags = Array.from({ length: count }, (_, i) => `${prefix}:${String(i).padStart(5, "0")}`);
  const statements = tags.map((tag, i) => env.DB.prepare("INSERT INTO purge_outbox (tag, seq, enqueued) VALUES (?, ?, ?)").bind(tag, i + 1, 1_800_000_000 + i));
  for (let at = 0; at < statements.length; at += 100) await env.DB.batch(statements.slice(at, at + 100));
  return tags;
}

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM purge_outbox").run();
});

describe("the outbox", () => {
  it("a public dataset made private enqueues its tag and the catalog's, coalesced over repeated flips", async () => {
    const key = await createKey("purge-team", "purge-flip");
    const d = await createDataset(key, "a\n1\n", { name: "flip", visibility: "public" });
    expect(await outbox()).toEqual([]);
    await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })]);
    const first = await outbox();
    expect(first.map((r) => r.tag)).toEqual(["catalog", `dataset:${d.id}`]);
    await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "public" })]);
    await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })]);
    const second = await outbox();
    expect(second.map((r) => r.tag)).toEqual(["catalog", `dataset:${d.id}`]);
    expect(second[1]!.seq).toBeGreaterThan(first[1]!.seq);
  });

  it("deleting a public dataset enqueues; private ones, appends and renames do not", async () => {
    const key = await createKey("purge-team", "purge-delete");
    const priv = await createDataset(key, "a\n1\n", { name: "never public" });
    const pub = await createDataset(key, "a\n1\n", { name: "public", visibility: "public" });
    await write("PUT", `/v1/dataset/${pub.id}`, key, [collectionPart({ name: "renamed" })]);
    expect((await send("DELETE", `/v1/dataset/${priv.id}`, { key })).status).toBe(204);
    expect(await outbox()).toEqual([]);
    expect((await send("DELETE", `/v1/dataset/${pub.id}`, { key })).status).toBe(204);
    expect((await outbox()).map((r) => r.tag)).toEqual(["catalog", `dataset:${pub.id}`]);
  });
});

describe("the drain", () => {
  it("sends at most 5 purges of at most 100 tags a run, oldest first, until the outbox is empty", async () => {
    const tags = await enqueue(1234);
    const { calls, purger } = recorder();
    const runs = [];
    for (let run = 0; run < 3; run++) {
      const before = calls.length;
      runs.push(await drainPurgeOutbox(env.DB, purger, Date.now()));
      expect(calls.length - before).toBeLessThanOrEqual(5);
    }
    expect(runs.map((r) => r.requests)).toEqual([5, 5, 3]);
    expect(runs.map((r) => r.pending)).toEqual([734, 234, 0]);
    for (const call of calls) expect(call.length).toBeLessThanOrEqual(100);
    expect(calls.flat()).toEqual(tags);
    expect(await drainPurgeOutbox(env.DB, purger, Date.now())).toMatchObject({ requests: 0, pending: 0 });
  });

  it("a failed purge keeps its tags (attempts counted), stops the run, and the next run purges them", async () => {
    const tags = await enqueue(250);
    const { calls, purger } = recorder((call) => call === 2);
    const first = await drainPurgeOutbox(env.DB, purger, Date.now());
    expect(first).toMatchObject({ requests: 2, purged: 100, failed: 100, pending: 150 });
    const kept = await outbox();
    expect(kept.filter((r) => r.attempts === 1).map((r) => r.tag)).toEqual(tags.slice(100, 200));
    const ok = recorder();
    await drainPurgeOutbox(env.DB, ok.purger, Date.now());
    expect(ok.calls.flat()).toEqual(tags.slice(100));
    expect(await outbox()).toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it("a tag enqueued again while its purge is in flight stays for the next run", async () => {
    const key = await createKey("purge-team", "purge-race");
    const d = await createDataset(key, "a\n1\n", { name: "race", visibility: "public" });
    await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })]);
    const { purger } = recorder(
      () => false,
      async () => {
        await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "public" })]);
        await write("PUT", `/v1/dataset/${d.id}`, key, [collectionPart({ visibility: "private" })]);
      },
    );
    await drainPurgeOutbox(env.DB, purger, Date.now());
    expect((await outbox()).map((r) => r.tag)).toEqual(["catalog", `dataset:${d.id}`]);
  });
});

describe("the purge interface", () => {
  it("production calls ctx.cache.purge({ tags }) and reads its result", async () => {
    const seen: CachePurgeOptions[] = [];
    const cache: CacheContext = {
      async purge(options) {
        seen.push(options);
        return seen.length === 1 ? { success: true, errors: [] } : { success: false, errors: [{ code: 1015, message: "rate limited" }] };
      },
      async invalidate() {
        throw new Error("not used");
      },
    };
    const purger = purgerFor({ EDGE_CACHE: "workers-cache" }, cache)!;
    expect(await purger.purge(["dataset:x", "catalog"])).toEqual({ ok: true });
    expect(await purger.purge(["dataset:y"])).toEqual({ ok: false, detail: "1015 rate limited" });
    expect(seen).toEqual([{ tags: ["dataset:x", "catalog"] }, { tags: ["dataset:y"] }]);
    expect(workersCachePurger(cache).name).toBe("workers-cache");
  });

  it("the scheduled handler drains through ctx.cache when Workers Cache is in front", async () => {
    const tags = await enqueue(150);
    const seen: CachePurgeOptions[] = [];
    const cache: CacheContext = {
      async purge(options) {
        seen.push(options);
        return { success: true, errors: [] };
      },
      async invalidate() {
        throw new Error("not used");
      },
    };
    // The handler reads only ctx.cache; workerd's test context has none, so this one carries it.
    const ctx = { cache } as unknown as ExecutionContext;
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: PURGE_CRON }), { ...env, EDGE_CACHE: "workers-cache" }, ctx);
    expect(seen).toEqual([{ tags: tags.slice(0, 100) }, { tags: tags.slice(100) }]);
    expect(await outbox()).toEqual([]);
  });

  it("with Workers Cache configured but its API absent, the drain keeps the outbox", async () => {
    await enqueue(3);
    expect(await runPurgeDrain({ ...env, EDGE_CACHE: "workers-cache" }, undefined, Date.now())).toBeNull();
    expect(await outbox()).toHaveLength(3);
  });

  it("locally (in-worker cache) the scheduled drain logs what it would purge and empties the outbox", async () => {
    await enqueue(3);
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: PURGE_CRON }), env);
    expect(await outbox()).toEqual([]);
  });
});
