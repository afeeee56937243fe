// The write protocol under faults (src/storage/README.md): a commit whose answer is lost is read
// back and answered 2xx, with its Idempotency-Key answer stored in the same batch, so a retry
// replays it and the rows land exactly once; a commit that did not apply answers 503 and changes
// nothing; R2 failing mid-upload answers 503 and leaves only collectable intents; and an append
// costs at most five sequential D1 round trips.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDataset, expectProblem, gunzipText, send } from "./helpers/http.ts";
import { createKey, type TestKey } from "./helpers/keys.ts";
import { appendWith, countingDb, untrackedObjects, wrapBinding } from "./helpers/storage.ts";

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
  return { ...env, DB } as Env;
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
    await appendWith({ ...env, DB } as Env, key, created.id, "2\n", { "Idempotency-Key": "died-after-commit" });
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
  it("a signed append makes at most five sequential D1 round trips", async () => {
    const key = await createKey(TEAM, "erin");
    const created = await createDataset(key, "n\n1\n");
    await appendWith(env, key, created.id, "2\n"); // warm the isolate's caches
    const { db, calls } = countingDb();
    const response = await appendWith({ ...env, DB: db } as Env, key, created.id, "3\n");
    expect(response.status).toBe(201);
    // Compaction after the response is not part of the request.
    const beforeResponse = calls.slice(0, calls.findIndex((c) => c.startsWith("batch of ") && Number(c.slice(9)) >= 5) + 1);
    expect(beforeResponse.length, beforeResponse.join("\n")).toBeLessThanOrEqual(5);
  });
});
