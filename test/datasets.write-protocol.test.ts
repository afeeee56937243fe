// The write protocol under faults (docs/storage-protocol.md): a commit whose answer is lost is read
// back and answered 2xx, with its Idempotency-Key answer stored in the same batch, so a retry
// replays it and the rows land exactly once; a commit that did not apply answers 503 and changes
// nothing; R2 failing mid-upload answers 503 and leaves only collectable intents; and an append
// costs at most five sequential D1 round trips.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { limitsFrom } from "../src/config.ts";
import { commitAppendGroup } from "../src/write/sequencer/queue.ts";
import { ingestCsv } from "../src/write/ingest/ingest.ts";
import { UploadedObjects } from "../src/write/ingest/uploaded-objects.ts";
import { getLatestState } from "../src/storage/datasets-db.ts";
import { createDataset, expectProblem, gunzipText, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { TIMINGS, appendWith, countingDb, untrackedObjects, withoutSequencer, wrapBinding } from "./helpers/storage.ts";

const TEAM = "team-write-protocol";

/** A D1 binding whose commit batch (the only batch of five or more statements) fails once, before or after applying. */
function failingCommit(when: "before" | "after") {
  let failed = false;
  const DB = wrapBinding(env.DB, {
    batch: async (statements: D1PreparedStatement[]) => {
      const isCommit = statements.length >= 5 && !failed;
      if (isCommit && when === "before") {
        failed = true;
        throw new Error("injected: D1 unreachable");
      }
      const result = await env.DB.batch(statements);
      if (isCommit) {
        failed = true;
        throw new Error("injected: network lost after commit");
      }
      return result;
    },
  });
  return withoutSequencer({ ...env, DB } as Env);
}

async function latestCsv(id: string, key: TestKey): Promise<string> {
  const record = await send("GET", `/v1/dataset/${id}/latest/data.csv.gz`, { key });
  return gunzipText(record);
}

describe("write protocol faults", () => {
  it("a commit whose answer was lost: 201 after the read-back, and the retry replays it; rows land once", async () => {
    const key = await createKey(TEAM, "alice");
    const created = await createDataset(key, "n\n1\n");
    const first = await appendWith(failingCommit("after"), key, created.id, "2\n", { "Idempotency-Key": "lost-answer-1" });
    expect(first.status).toBe(201);
    const body = (await first.json()) as { version: string };
    const retry = await appendWith(env, key, created.id, "2\n", { "Idempotency-Key": "lost-answer-1" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(((await retry.json()) as { version: string }).version).toBe(body.version);
    expect(await latestCsv(created.id, key)).toBe("n\n1\n2\n");
  });

  it("the worker dies after the commit: the Idempotency-Key answer was stored with it", async () => {
    const key = await createKey(TEAM, "bob");
    const created = await createDataset(key, "n\n1\n");
    // The answer is lost and the middleware's own store of it fails too.
    let commits = 0;
    const DB = wrapBinding(env.DB, {
      batch: async (statements: D1PreparedStatement[]) => {
        const result = await env.DB.batch(statements);
        if (statements.length >= 5) commits++;
        if (commits > 0) throw new Error("injected: isolate gone");
        return result;
      },
      prepare: (sql: string) => {
        if (commits > 0) throw new Error("injected: isolate gone");
        return env.DB.prepare(sql);
      },
    });
    await appendWith(withoutSequencer({ ...env, DB } as Env), key, created.id, "2\n", { "Idempotency-Key": "died-after-commit" });
    const retry = await appendWith(env, key, created.id, "2\n", { "Idempotency-Key": "died-after-commit" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await latestCsv(created.id, key)).toBe("n\n1\n2\n");
  });

  it("a commit that did not apply: 503, nothing changed, and the retry with the same key lands once", async () => {
    const key = await createKey(TEAM, "carol");
    const created = await createDataset(key, "n\n1\n");
    await expectProblem(await appendWith(failingCommit("before"), key, created.id, "2\n", { "Idempotency-Key": "not-applied" }), 503, "service_unavailable");
    expect(await latestCsv(created.id, key)).toBe("n\n1\n");
    const retry = await appendWith(env, key, created.id, "2\n", { "Idempotency-Key": "not-applied" });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await latestCsv(created.id, key)).toBe("n\n1\n2\n");
    expect(await untrackedObjects(created.id)).toEqual([]);
  });

  it("R2 failing mid-upload: 503, no version, and nothing but collectable intents left", async () => {
    const key = await createKey(TEAM, "dave");
    const created = await createDataset(key, "n\n1\n");
    const broken = wrapBinding(env.CONTENT, {
      put: async () => {
        throw new Error("injected: R2 put failed");
      },
      createMultipartUpload: async () => {
        throw new Error("injected: R2 unavailable");
      },
    });
    await expectProblem(await appendWith({ ...env, CONTENT: broken } as Env, key, created.id, "2\n"), 503, "service_unavailable");
    expect(await latestCsv(created.id, key)).toBe("n\n1\n");
    expect(await untrackedObjects(created.id)).toEqual([]);
  });
});

describe("round trips", () => {
  it("a signed append: at most four D1 round trips in the request, and one commit in the sequencer", async () => {
    const key = await createKey(TEAM, "erin");
    const created = await createDataset(key, "n\n1\n");
    await appendWith(env, key, created.id, "2\n"); // warm the sequencer's latest version
    const { db, calls } = countingDb();
    const response = await appendWith({ ...env, DB: db } as Env, key, created.id, "3\n");
    expect(response.status).toBe(201);
    // Compaction after the response is not part of the request: count up to the intent insert.
    const inRequest = calls.slice(0, calls.findIndex((c) => c.includes("INSERT INTO pending_objects")) + 1);
    expect(inRequest.length, inRequest.join("\n")).toBeLessThanOrEqual(4);
  });

  it("the sequencer commits a group in one round trip once it knows the latest version", async () => {
    const key = await createKey(TEAM, "frank");
    const created = await createDataset(key, "n\n1\n");
    const known = { latest: await getLatestState(env.DB, created.id) };
    const appends = [];
    for (const rows of ["2\n", "3\n", "4\n"]) {
      const objects = new UploadedObjects(env, created.id, TIMINGS);
      const keyOf = await objects.reserve();
      const ingested = await ingestCsv(new Blob([rows]).stream(), {
        mode: { kind: "rows", expectedColumns: 1, header: ["n"] },
        typing: { kind: "check", schema: known.latest!.version.schema },
        limits: limitsFrom(env),
        bucket: env.CONTENT,
        key: keyOf,
      });
      appends.push({ datasetId: created.id, caller: { teamId: key.team, userId: key.user }, ifMatch: null, collection: null, ingested, idempotency: null });
    }
    const { db, calls } = countingDb();
    const outcomes = await commitAppendGroup({ ...env, DB: db }, appends, known);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(calls).toEqual(["batch of " + calls[0]!.slice(9)]);
    expect(await latestCsv(created.id, key)).toBe("n\n1\n2\n3\n4\n");
    const seqs = outcomes.map((o) => (o.ok ? o.result.version.seq : 0));
    expect(seqs).toEqual([2, 3, 4]);
  });
});
