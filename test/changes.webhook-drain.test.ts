// docs/storage-protocol.md "Webhook delivery": the drain after commits runs one at a time in an
// isolate. The answers of an append group arrive together; each asks for a drain, and they cost
// two runs, not one each, with every event still queued. Its own file, so no other test's drain
// is running in this isolate when it starts.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { DRAIN_ROUND_MS, drainAfterCommit } from "../src/changes/webhooks/drain.ts";
import { countingD1 } from "./helpers/d1-wrappers.ts";
import { createKey } from "./helpers/keys.ts";
import { createWebhook, received } from "./helpers/webhooks.ts";

const BURST = 20;

it("a burst of commits' drains runs twice, not once per commit, the second round DRAIN_ROUND_MS after the first, and queues every event", { timeout: 60_000 }, async () => {
  const key = await createKey("hb-team", "burst");
  const name = `burst-${crypto.randomUUID()}`;
  await createWebhook(key, { url: `${env.TEST_WEBHOOK_RECEIVER}/ok/${name}` });
  const counting = countingD1(env.DB);
  // When each round's read was made.
  const readAt: number[] = [];
  const db = {
    prepare: (sql: string) => counting.db.prepare(sql),
    batch: (statements: D1PreparedStatement[]) => {
      const answer = counting.db.batch(statements);
      if (counting.queries.at(-1)?.sql.includes("FROM webhooks WHERE enabled = 1 AND drained_seq <")) readAt.push(Date.now());
      return answer;
    },
  } as unknown as D1Database;
  const deferred: Array<Promise<void>> = [];
  // An append group's commit: its events in one batch, then its answers, each asking for a drain.
  const insert = env.DB.prepare("INSERT INTO change_events (type, public_type, dataset_id, team_id, version_id, occurred) VALUES ('dataset.deleted', NULL, ?, ?, NULL, ?)");
  await env.DB.batch(Array.from({ length: BURST }, () => insert.bind(crypto.randomUUID(), key.team, new Date().toISOString())));
  const asked = Date.now();
  for (let n = 0; n < BURST; n++) drainAfterCommit({ DB: db, WEBHOOKS: env.WEBHOOKS }, (work) => deferred.push(work));
  expect(deferred).toHaveLength(1);
  await Promise.all(deferred);
  // The round asked for meanwhile starts no sooner than DRAIN_ROUND_MS after the first began,
  // which was after `asked` (its read is seen here a moment after it began, so the gap between
  // the two reads may be a few ms short of the rule; how soon the first starts is the machine's
  // load, not the drain's rule, so it is not asserted).
  expect(readAt).toHaveLength(2);
  expect(readAt[0]!).toBeGreaterThanOrEqual(asked);
  expect(readAt[1]! - asked).toBeGreaterThanOrEqual(DRAIN_ROUND_MS);
  // Each round reads the webhooks behind and their events in one round trip.
  const reads = counting.queries.filter((q) => q.sql.includes("FROM webhooks WHERE enabled = 1 AND drained_seq <"));
  expect(reads).toHaveLength(2);
  for (const read of reads) expect(read.sql).toMatch(/^BATCH .* ; SELECT \* FROM change_events WHERE seq > \(SELECT MIN\(drained_seq\)/);
  expect(counting.queries.filter((q) => q.sql.includes("FROM change_events WHERE seq >"))).toHaveLength(2);

  // A commit after the burst's drain has finished starts a drain of its own.
  drainAfterCommit({ DB: db, WEBHOOKS: env.WEBHOOKS }, (work) => deferred.push(work));
  expect(deferred).toHaveLength(2);
  await deferred[1];

  const deadline = Date.now() + 20_000;
  while ((await received(name)).length < BURST && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(new Set((await received(name)).map((r) => r.headers["webhook-id"])).size).toBe(BURST);
});
