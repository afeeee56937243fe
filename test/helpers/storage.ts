// Test tools for the storage protocol (docs/storage-protocol.md): requests through the worker with
// a chosen env whose background work is awaited, wrappers around the real D1 and R2 bindings
// that count or fail calls, and look-ups of the intent log.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { signRequest } from "../../src/wire/sign.ts";
import { limitsFrom, storageTimingsFrom } from "../../src/config.ts";
import worker from "../../src/index.ts";
import { ORIGIN, csvPart, multipart, type Part } from "./http.ts";
import type { TestKey } from "./keys.ts";
import type { MergePolicy } from "../../src/config.ts";

export const TIMINGS = storageTimingsFrom(limitsFrom(env));

/** Merges until one segment is left (the old all-in-one compaction), for tests of merging itself. */
export const MERGE_ALL: MergePolicy = { fanIn: 2, maxSegments: 1, maxMergedBytes: 1024 * 1024 * 1024 };

/**
 * The env with compaction after appends effectively off, so tests control every merge: no
 * append sequencer (it compacts with its own env), and a merge policy that never merges.
 */
export const NO_AUTO_COMPACTION: Env = withoutSequencer(Object.assign({}, env, { COMPACTION_FAN_IN: "100000", COMPACTION_MAX_SEGMENTS: "100000" }));

/** The env with the after-commit queues (AFTER_COMMIT, TWINS) replaced by one recorder: work after commits runs only when a test hands the messages to the consumer. */
export function recordingAfterCommit(workerEnv: Env = env): { env: Env; sent: unknown[]; delays: (number | undefined)[] } {
  const sent: unknown[] = [];
  /** Each sent message's `delaySeconds`, in the order of `sent`. */
  const delays: (number | undefined)[] = [];
  const queue = {
    send: async (body: unknown, options?: { delaySeconds?: number }) => {
      sent.push(body);
      delays.push(options?.delaySeconds);
    },
    sendBatch: async (messages: Iterable<{ body: unknown; delaySeconds?: number }>) => {
      for (const message of messages) {
        sent.push(message.body);
        delays.push(message.delaySeconds);
      }
    },
  };
  return { env: { ...workerEnv, AFTER_COMMIT: queue as unknown as Queue, TWINS: queue as unknown as Queue }, sent, delays };
}

/** A signed request to the worker with `workerEnv`; resolves after its waitUntil work too. */
export async function signedFetch(
  workerEnv: Env,
  method: string,
  path: string,
  key: TestKey,
  options: { parts?: Part[]; headers?: Record<string, string> } = {},
): Promise<Response> {
  const url = ORIGIN + path;
  let body: Uint8Array | undefined;
  const headers: Record<string, string> = { ...options.headers };
  if (options.parts) {
    // A fixed boundary: a retry sends the same bytes, as a client retrying a write does.
    const built = multipart(options.parts, "pubset-test-fixed-boundary");
    body = built.body;
    headers["Content-Type"] = built.contentType;
  }
  const signed = await signRequest({ method, url, headers, body }, key);
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url, { method, headers: signed, body }), workerEnv, ctx);
  const bytes = await response.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(bytes, response);
}

export async function appendWith(workerEnv: Env, key: TestKey, id: string, rows: string, headers: Record<string, string> = {}): Promise<Response> {
  return signedFetch(workerEnv, "POST", `/v1/dataset/${id}`, key, { parts: [csvPart(rows)], headers });
}

/** Forwards everything to the real binding, except what `override` replaces. */
export function wrapBinding<T extends object>(real: T, override: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(real, {
    get(target, property, receiver: T) {
      if (Object.prototype.hasOwnProperty.call(override, property)) return override[property as keyof T];
      // The worker opens one D1 session per request (src/edge/d1-session.ts); a session of
      // a wrapped D1 binding goes through the wrapper, so what it overrides still applies.
      if (property === "withSession" && ("prepare" in override || "batch" in override)) {
        const db = receiver as unknown as D1Database;
        return () => ({ prepare: (sql: string) => db.prepare(sql), batch: (statements: D1PreparedStatement[]) => db.batch(statements), getBookmark: () => null });
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export interface PendingRow {
  key: string;
  reason: string;
  state: string;
  collect_after: number;
}

export async function pendingRows(datasetId: string): Promise<PendingRow[]> {
  const { results } = await env.DB.prepare("SELECT key, reason, state, collect_after FROM pending_objects WHERE dataset_id = ? ORDER BY key")
    .bind(datasetId)
    .all<PendingRow>();
  return results;
}

export async function objectExists(key: string): Promise<boolean> {
  return (await env.CONTENT.head(key)) !== null;
}

/** Objects under the dataset's prefix that no segment row, Parquet row nor the intent log knows: leaks. */
export async function untrackedObjects(datasetId: string): Promise<string[]> {
  const listed = (await env.CONTENT.list({ prefix: `datasets/${datasetId}/` })).objects.map((o) => o.key);
  if (listed.length === 0) return [];
  const { results } = await env.DB.prepare(
    `SELECT value AS key FROM json_each(?1) WHERE value NOT IN (SELECT key FROM segments) AND value NOT IN (SELECT key FROM pending_objects)
       AND value NOT IN (SELECT key FROM parquet_parts) AND value NOT IN (SELECT tail_key FROM version_parquet WHERE tail_key IS NOT NULL)`,
  )
    .bind(JSON.stringify(listed))
    .all<{ key: string }>();
  return results.map((r) => r.key);
}

/**
 * Every object of the datasets' content, leaving out the Parquet twins (`…/parquet/…`): those are
 * built in the background after earlier commits (docs/columnar.md) and may land at any moment, so
 * a test of what one refused request stored counts the rest.
 */
export async function contentObjectKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.CONTENT.list({ cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys.filter((key) => !/^datasets\/[^/]+\/parquet\//.test(key));
}

export async function contentObjectCount(): Promise<number> {
  return (await contentObjectKeys()).length;
}

/** Objects in the bucket that the intent log does not mark for collection: what the service keeps. */
export async function keptObjectCount(): Promise<number> {
  const listed = await contentObjectKeys();
  if (listed.length === 0) return 0;
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM json_each(?1) WHERE value NOT IN (SELECT key FROM pending_objects)")
    .bind(JSON.stringify(listed))
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The real D1 binding, counting every round trip (each run/first/all/raw and each batch). */
export function countingDb(real: D1Database = env.DB): { db: D1Database; calls: string[] } {
  const calls: string[] = [];
  const unwrap = new WeakMap<object, D1PreparedStatement>();
  const wrapStatement = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const wrapped = wrapBinding(statement, {
      bind: (...values: unknown[]) => wrapStatement(statement.bind(...values), sql),
      first: (...args: [string?]) => (calls.push(sql), statement.first(...(args as [string]))),
      all: () => (calls.push(sql), statement.all()),
      run: () => (calls.push(sql), statement.run()),
      raw: (...args: unknown[]) => (calls.push(sql), (statement.raw as (...a: unknown[]) => unknown)(...args)),
    });
    unwrap.set(wrapped, statement);
    return wrapped;
  };
  const db = wrapBinding(real, {
    prepare: (sql: string) => wrapStatement(real.prepare(sql), sql),
    batch: (statements: D1PreparedStatement[]) => {
      calls.push(`batch of ${statements.length}`);
      return real.batch(statements.map((s) => unwrap.get(s) ?? s));
    },
  });
  return { db, calls };
}

/** The env without the append sequencer: appends commit with the compare-and-swap loop in the request itself. */
export function withoutSequencer(workerEnv: Env): Env {
  const copy: Partial<Env> = { ...workerEnv };
  delete copy.APPEND_SEQUENCER;
  return copy as Env;
}

/** A version's Parquet twin parts in their order, as the twin's tables record them (docs/storage-protocol.md). */
export async function twinPartRows(versionId: string): Promise<Array<{ key: string; data_bytes: number; meta_bytes: number; summary_bytes: number }>> {
  const { results } = await env.DB.prepare(
    "SELECT p.key, p.data_bytes, p.meta_bytes, p.summary_bytes FROM version_parquet_parts vp JOIN parquet_parts p ON p.key = vp.part_key WHERE vp.version_id = ? ORDER BY vp.position",
  )
    .bind(versionId)
    .all<{ key: string; data_bytes: number; meta_bytes: number; summary_bytes: number }>();
  return results;
}
