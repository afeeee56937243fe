// Turning derived content into committed versions: the next version of the chain, and the
// commit that reads its version back when D1 fails without saying whether the batch applied
// (docs/storage-protocol.md, invariant 7). Used by writeVersion and by the append sequencer.
import { ApiError } from "../model/errors.ts";
import { commitVersions, versionExists, type CommitOutcome, type VersionCommit } from "../storage/datasets-db.ts";
import { searchFields, searchFieldsDiffer } from "../storage/search-db.ts";
import { completeIdempotencyStatement, type StoredResponse } from "./store.ts";
import { answerToStore } from "./answers.ts";
import { settleUploadStatement, uploadCommitStatement } from "../uploads/store.ts";
import type { Collection } from "./collection-schema.ts";
import type { DerivedContent } from "./ingest/version-content.ts";
import type { IdempotencyHold, UploadSettlement, WriteAnswer, WriteKind, WriteResult } from "./write-types.ts";
import type { DatasetRow, VersionRow } from "../model/dataset.ts";
import { versionEventTypes } from "../model/change-events.ts";
import { versionEventStatement } from "../changes/store.ts";

export interface Creator {
  teamId: string;
  userId: string;
}

/** The version after `latest` (the first one when null), with the collection's fields applied. */
export function nextVersion(
  datasetId: string,
  creator: Creator,
  latest: WriteResult | null,
  collection: Collection | null,
  derived: DerivedContent,
): WriteResult {
  const parent = latest?.version ?? null;
  const version: VersionRow = {
    ...derived.content,
    id: crypto.randomUUID(),
    datasetId,
    seq: (parent?.seq ?? 0) + 1,
    parentId: parent?.id ?? null,
    created: new Date().toISOString(),
    name: collection?.name ?? parent?.name ?? "",
    visibility: collection?.visibility ?? parent?.visibility ?? "private",
    properties: collection?.properties ?? parent?.properties ?? {},
    // Content and properties carried over from the parent name the parent's stored copies, so
    // an append does not stringify and hash a header of up to 1 MiB again.
    headerId: parent && derived.content.columns === parent.columns ? parent.headerId : undefined,
    propertiesId: parent && collection?.properties === undefined ? parent.propertiesId : undefined,
    ...(parent && derived.content.schema === parent.schema && parent.schemaId ? { schemaId: parent.schemaId } : {}),
    ...(parent && derived.content.declared === parent.declared && parent.declaredId !== undefined ? { declaredId: parent.declaredId } : {}),
  };
  const base = latest?.dataset ?? { id: datasetId, teamId: creator.teamId, ownerId: creator.userId, created: version.created };
  const dataset: DatasetRow = { ...base, name: version.name, visibility: version.visibility, latestVersion: version.id, latestSeq: version.seq };
  return { dataset, version };
}

export interface PlannedCommit {
  /** Which write it is, for its change event (docs/changes.md). */
  kind: WriteKind;
  result: WriteResult;
  /** The version it builds on; null for a create. */
  parent: VersionRow | null;
  creates: boolean;
  derived: DerivedContent;
  idempotency: IdempotencyHold | null;
  /** The resumable upload this commit completes, if any. */
  settles?: UploadSettlement | null;
  answer: WriteAnswer;
  /** docs/api.md#who-sees-what `"history": "public"`: the commit also publishes every earlier version (drafts). */
  publishHistory?: boolean;
}

export function publishesHistory(collection: Collection | null): boolean {
  return collection?.history === "public";
}

function storedAnswer(answer: WriteAnswer): StoredResponse {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (answer.location !== null) headers.Location = answer.location;
  return { status: answer.status, headers, body: answer.json };
}

function searchableChanged(parent: VersionRow | null, version: VersionRow): boolean {
  return parent === null || searchFieldsDiffer(searchFields(parent), searchFields(version));
}

function toCommit(db: D1Database, planned: PlannedCommit): VersionCommit {
  const { dataset, version } = planned.result;
  const hold = planned.idempotency;
  const settles = planned.settles ?? null;
  // The outbox row commits with the version or not at all (docs/storage-protocol.md "Change events").
  const event = versionEventStatement(db, {
    ...versionEventTypes(planned.kind, planned.parent?.visibility ?? null, version.visibility),
    datasetId: dataset.id,
    teamId: dataset.teamId,
    versionId: version.id,
    occurred: version.created,
  });
  const alongside = [
    event,
    ...(hold ? [completeIdempotencyStatement(db, hold.scope, hold.token, storedAnswer(planned.answer), hold.expiresSeconds)] : []),
    ...(settles
      ? [
          uploadCommitStatement(db, settles.uploadId, planned.result.version.id, Date.now()),
          settleUploadStatement(db, settles.uploadId, "done", answerToStore(planned.answer), settles.expiresAt),
        ]
      : []),
  ];
  return {
    dataset: planned.creates ? { id: dataset.id, teamId: dataset.teamId, ownerId: dataset.ownerId } : null,
    version,
    reuseParentSegments: planned.derived.reuseParentSegments,
    newSegments: planned.derived.newSegments,
    alongside,
    reindex: searchableChanged(planned.parent, version),
    publishHistory: planned.publishHistory === true,
  };
}

/**
 * Commits the planned versions in one batch; when D1 fails without saying whether the batch
 * applied, reads the first version back before deciding (the batch is all or nothing).
 */
export async function commitOrReadBack(db: D1Database, planned: readonly PlannedCommit[]): Promise<CommitOutcome> {
  const first = planned[0];
  if (!first) return "committed";
  try {
    return await commitVersions(db, planned.map((p) => toCommit(db, p)));
  } catch (error: unknown) {
    const { dataset, version } = first.result;
    console.error(JSON.stringify({ event: "commit_ambiguous", datasetId: dataset.id, versionId: version.id, error: String(error) }));
    let committed: boolean;
    try {
      committed = await versionExists(db, version.id);
    } catch {
      throw new ApiError(
        "service_unavailable",
        `The database did not answer; version ${version.id} may or may not exist. GET /v1/dataset/${dataset.id}/versions tells.`,
        {},
        { "Retry-After": "1" },
      );
    }
    if (committed) return "committed";
    throw new ApiError("service_unavailable", "The database did not answer; the request changed nothing. Retry.", {}, { "Retry-After": "1" });
  }
}
