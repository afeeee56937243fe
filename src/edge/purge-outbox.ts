// Drains the purge outbox into Workers Cache within the platform's purge budget: Workers Cache
// purges "always use the Free tier limits", 5 requests a minute (bucket 25) of at most 100 tags
// each (docs/edge-and-caching.md, "Purges"). The drain runs once a minute (cron in wrangler.toml) and sends at most
// 5 requests of 100 tags, oldest first, so a burst of flips is coalesced and spread over minutes,
// never dropped: a tag leaves the outbox only after a purge that covered it succeeded.
import { completePurges, failedPurges, outboxBacklog, pendingPurges } from "./store.ts";

/** Must match the first cron in wrangler.toml: one drain a minute keeps within the purge budget. */
export const PURGE_CRON = "* * * * *";
export const PURGE_REQUESTS_PER_RUN = 5;
export const TAGS_PER_PURGE = 100;

/** Where purges go: Workers Cache in production, a log line where it does not exist. */
export interface Purger {
  readonly name: string;
  purge(tags: string[]): Promise<{ ok: true } | { ok: false; detail: string }>;
}

/** Production: `ctx.cache.purge({ tags })` (Workers Cache purge API). */
export function workersCachePurger(cache: CacheContext): Purger {
  return {
    name: "workers-cache",
    async purge(tags) {
      const result = await cache.purge({ tags });
      return result.success ? { ok: true } : { ok: false, detail: result.errors.map((e) => `${e.code} ${e.message}`).join("; ") };
    },
  };
}

/**
 * Where Workers Cache is absent (`wrangler dev`, tests: `ctx.cache` is undefined there) there is
 * nothing to purge; this says what a deployed worker would purge. The local in-worker cache
 * needs no purge: it checks a dataset's visibility on every hit.
 */
export function absentCachePurger(log: (line: string) => void = console.log): Purger {
  return {
    name: "none (Workers Cache absent)",
    async purge(tags) {
      log(JSON.stringify({ event: "purge_skipped_no_workers_cache", wouldPurge: tags }));
      return { ok: true };
    },
  };
}

/**
 * The purger for this worker: Workers Cache when it is in front (`EDGE_CACHE = "workers-cache"`)
 * and its purge API is present; null when it should be but is not, so the outbox is kept.
 */
export function purgerFor(env: { EDGE_CACHE?: string }, cache: CacheContext | undefined): Purger | null {
  if (env.EDGE_CACHE !== "workers-cache") return absentCachePurger();
  return cache ? workersCachePurger(cache) : null;
}

export interface DrainSummary {
  requests: number;
  purged: number;
  failed: number;
  pending: number;
  oldestPendingSeconds: number;
}

/** One drain run: at most PURGE_REQUESTS_PER_RUN purges of at most TAGS_PER_PURGE tags. */
export async function drainPurgeOutbox(db: D1Database, purger: Purger, nowMs: number): Promise<DrainSummary> {
  const summary: DrainSummary = { requests: 0, purged: 0, failed: 0, pending: 0, oldestPendingSeconds: 0 };
  const pending = await pendingPurges(db, PURGE_REQUESTS_PER_RUN * TAGS_PER_PURGE);
  for (let at = 0; at < pending.length && summary.requests < PURGE_REQUESTS_PER_RUN; at += TAGS_PER_PURGE) {
    const batch = pending.slice(at, at + TAGS_PER_PURGE);
    const tags = batch.map((p) => p.tag);
    summary.requests++;
    let outcome: Awaited<ReturnType<Purger["purge"]>>;
    try {
      outcome = await purger.purge(tags);
    } catch (error: unknown) {
      outcome = { ok: false, detail: String(error) };
    }
    if (!outcome.ok) {
      // Most likely the purge rate limit: keep every tag and stop until the next run.
      summary.failed += tags.length;
      await failedPurges(db, tags);
      console.error(JSON.stringify({ event: "purge_failed", purger: purger.name, tags: tags.length, detail: outcome.detail }));
      break;
    }
    await completePurges(db, batch);
    summary.purged += tags.length;
  }
  const backlog = await outboxBacklog(db, Math.floor(nowMs / 1000));
  summary.pending = backlog.pending;
  summary.oldestPendingSeconds = backlog.oldestSeconds;
  return summary;
}

/** The scheduled drain: logs its summary; keeps the outbox when Workers Cache's API is missing. */
export async function runPurgeDrain(env: Env, cache: CacheContext | undefined, nowMs: number): Promise<DrainSummary | null> {
  const purger = purgerFor(env, cache);
  if (purger === null) {
    console.error(JSON.stringify({ event: "purge_api_missing", detail: "EDGE_CACHE is workers-cache but ctx.cache is absent; the outbox is kept" }));
    return null;
  }
  const summary = await drainPurgeOutbox(env.DB, purger, nowMs);
  console.log(JSON.stringify({ event: "purge_drain", purger: purger.name, ...summary }));
  return summary;
}
