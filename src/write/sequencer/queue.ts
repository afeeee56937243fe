// The group commit the append sequencer (durable-object.ts, a Durable Object) runs: the appends
// that arrived while a commit ran are committed together as consecutive versions in one D1
// batch. Concurrent appenders then queue instead of losing compare-and-swap rounds to each
// other. The appender's side of the call is client.ts.
import { limitsFrom, storageTimingsFrom } from "../../config.ts";
import { ApiError, type ProblemCode, type ProblemExtensions } from "../../model/errors.ts";
import { getLatestState } from "../../storage/datasets-db.ts";
import { appendAnswer } from "../answers.ts";
import type { Collection } from "../collection-schema.ts";
import type { IngestedContent, IngestedSegment } from "../ingest/ingest.ts";
import { UploadedObjects } from "../ingest/uploaded-objects.ts";
import { commitOrReadBack, nextVersion, publishesHistory, type Creator, type PlannedCommit } from "../commit.ts";
import { appendedContent } from "../ingest/version-content.ts";
import type { IdempotencyHold, UploadSettlement, WriteAnswer, WriteResult } from "../write-types.ts";

/** One validated append whose rows are in R2, waiting for its commit. */
export interface QueuedAppend {
  datasetId: string;
  caller: Creator;
  ifMatch: string | null;
  collection: Collection | null;
  ingested: IngestedSegment | IngestedContent;
  idempotency: IdempotencyHold | null;
  /** The resumable upload this append completes, settled in the commit's batch. */
  settles?: UploadSettlement | null;
}

interface Problem {
  code: ProblemCode;
  detail: string;
  extensions: ProblemExtensions;
  headers: Record<string, string>;
}

/** What crosses back from the sequencer: plain data, since errors lose their fields over RPC. */
/** `bookmark`: a D1 bookmark at least as new as the commit, for the appender's X-D1-Bookmark. */
/** `answer`: built before the commit, so the appender sends it without building it again. */
export type QueuedOutcome = { ok: true; result: WriteResult; answer: WriteAnswer; bookmark?: string | null } | { ok: false; problem: Problem };

function failed(error: unknown): QueuedOutcome {
  if (error instanceof ApiError) return { ok: false, problem: { code: error.code, detail: error.detail, extensions: error.extensions, headers: error.headers } };
  console.error(JSON.stringify({ event: "append_group_failed", error: String(error) }));
  return { ok: false, problem: { code: "service_unavailable", detail: "The commit failed; retry.", extensions: {}, headers: { "Retry-After": "1" } } };
}

const problem = (code: ProblemCode, detail: string): QueuedOutcome => ({ ok: false, problem: { code, detail, extensions: {}, headers: {} } });

const MAX_ROUNDS = 20;

/**
 * The latest version as the sequencer last committed it. Only the sequencer appends, but PUTs
 * and deletes do not pass through it: a stale entry makes the commit fail its compare-and-swap
 * (or foreign key), and the group is derived again from a fresh read, so it saves the read in
 * the common case and is never trusted past a failed commit.
 */
export interface LatestCache {
  latest: WriteResult | null;
}

/**
 * Commits `appends` (all to one dataset, in arrival order) as consecutive versions in one
 * batch. Each builds on the one before; one that cannot (If-Match, columns, header row) gets
 * its own problem and the rest go on. A batch that fails as a whole because of one append's
 * objects is retried one append at a time, so only that append fails.
 */
export async function commitAppendGroup(
  env: { DB: D1Database; CONTENT: R2Bucket } & object,
  appends: readonly QueuedAppend[],
  known: LatestCache = { latest: null },
): Promise<QueuedOutcome[]> {
  const first = appends[0];
  if (!first) return [];
  const datasetId = first.datasetId;
  const objects = new UploadedObjects(env, datasetId, storageTimingsFrom(limitsFrom(env)));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cached = round === 0 ? known.latest : null;
    const latest = cached ?? (await getLatestState(env.DB, datasetId));
    known.latest = null;
    if (!latest) return appends.map(() => problem("not_found", `No dataset ${datasetId}.`));
    const outcomes: Array<QueuedOutcome | null> = [];
    const planned: PlannedCommit[] = [];
    let parent: WriteResult = latest;
    for (const append of appends) {
      if (append.ifMatch !== null && append.ifMatch !== parent.version.id) {
        outcomes.push(problem("precondition_failed", `If-Match names ${append.ifMatch} but the latest version is ${parent.version.id}.`));
        continue;
      }
      try {
        const derived = await appendedContent(parent.version, append.ingested, objects.lineBreak);
        const result = nextVersion(datasetId, append.caller, parent, append.collection, derived);
        const publishHistory = publishesHistory(append.collection);
        planned.push({ kind: "append", result, parent: parent.version, creates: false, derived, idempotency: append.idempotency, settles: append.settles ?? null, answer: appendAnswer(result), publishHistory });
        outcomes.push(null);
        parent = result;
      } catch (error: unknown) {
        outcomes.push(failed(error));
      }
    }
    // A PUT may have changed the columns or types since the cached version: a refusal is only
    // given on a fresh read.
    if (cached !== null && outcomes.some((o) => o !== null)) continue;
    let outcome;
    try {
      outcome = await commitOrReadBack(env.DB, planned);
    } catch (error: unknown) {
      return outcomes.map((o) => o ?? failed(error));
    }
    if (outcome === "committed") {
      known.latest = planned[planned.length - 1]?.result ?? latest;
      let next = 0;
      return outcomes.map((o) => {
        if (o !== null) return o;
        const { result, answer } = planned[next++]!;
        return { ok: true, result, answer };
      });
    }
    if (outcome === "gone") return appends.map(() => problem("not_found", `No dataset ${datasetId}.`));
    if (outcome === "unclaimable") {
      if (appends.length === 1) return [failed(new ApiError("conflict", "The upload took longer than the server keeps unfinished uploads; send it again."))];
      const one: QueuedOutcome[] = [];
      for (const append of appends) one.push(...(await commitAppendGroup(env, [append], known)));
      return one;
    }
    // A write outside the sequencer (a PUT) committed first: derive the group again on it.
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 10));
  }
  return appends.map(() => problem("conflict", "Too many concurrent writes to this dataset; retry."));
}
