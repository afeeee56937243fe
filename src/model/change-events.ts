// Which event a committed write makes, in the owning team's view and in the public view
// (docs/changes.md "Event types and who sees them"). Decided at commit from the visibility
// before and after the write, so the public view never names a draft. Pure.
import type { Visibility } from "./dataset.ts";

export const TEAM_EVENT_TYPES = [
  "dataset.created",
  "dataset.updated",
  "dataset.appended",
  "dataset.published",
  "dataset.unpublished",
  "dataset.deleted",
] as const;
export type TeamEventType = (typeof TEAM_EVENT_TYPES)[number];

export const PUBLIC_EVENT_TYPES = ["dataset.created", "dataset.updated", "dataset.appended", "dataset.published", "dataset.withdrawn"] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

export const EVENT_TYPES = [...TEAM_EVENT_TYPES, "dataset.withdrawn"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The two views of one event: `publicType` null means a reader of public data sees nothing. */
export interface EventTypes {
  type: TeamEventType;
  publicType: PublicEventType | null;
}

export type VersionWriteKind = "create" | "update" | "append";

/**
 * The event of a write that made a version. `before` is the dataset's visibility before it
 * (null for a create): a flip is told as published or unpublished whatever else the write did.
 */
export function versionEventTypes(kind: VersionWriteKind, before: Visibility | null, after: Visibility): EventTypes {
  let type: TeamEventType;
  if (before === null || kind === "create") type = "dataset.created";
  else if (before === "private" && after === "public") type = "dataset.published";
  else if (before === "public" && after === "private") type = "dataset.unpublished";
  else type = kind === "append" ? "dataset.appended" : "dataset.updated";
  if (type === "dataset.unpublished") return { type, publicType: "dataset.withdrawn" };
  // A version written while the dataset is private is a draft: outsiders never hear of it.
  return { type, publicType: after === "public" ? type : null };
}

/** The event of a delete: outsiders hear of it only when the dataset was public. */
export function deleteEventTypes(before: Visibility): EventTypes {
  return { type: "dataset.deleted", publicType: before === "public" ? "dataset.withdrawn" : null };
}

/** An outbox row as the drain and the webhook consumer read it: both views of one event. */
export interface StoredEvent {
  seq: number;
  type: TeamEventType;
  publicType: PublicEventType | null;
  datasetId: string;
  teamId: string;
  versionId: string | null;
  occurred: string;
}

/** What a webhook receives: its team's view, plus the public view of the datasets it names. */
export interface WebhookScope {
  teamId: string;
  /** The event types it takes; empty takes every type. */
  events: readonly EventType[];
  datasets: readonly string[];
}

/** The event as a reader in `scope` sees it; null when that reader must not see it. */
export interface SeenEvent {
  seq: number;
  type: EventType;
  datasetId: string;
  version: string | null;
  team: string | null;
  occurred: string;
  /** True when seen in the public view: the consumer checks again that it still may be. */
  public: boolean;
}

export function eventForWebhook(event: StoredEvent, scope: WebhookScope): SeenEvent | null {
  let seen: SeenEvent | null = null;
  if (event.teamId === scope.teamId) {
    seen = { seq: event.seq, type: event.type, datasetId: event.datasetId, version: event.versionId, team: event.teamId, occurred: event.occurred, public: false };
  } else if (event.publicType !== null && scope.datasets.includes(event.datasetId)) {
    const withdrawn = event.publicType === "dataset.withdrawn";
    seen = {
      seq: event.seq,
      type: event.publicType,
      datasetId: event.datasetId,
      version: withdrawn ? null : event.versionId,
      team: withdrawn ? null : event.teamId,
      occurred: event.occurred,
      public: true,
    };
  }
  if (seen === null || (scope.events.length > 0 && !scope.events.includes(seen.type))) return null;
  return seen;
}
