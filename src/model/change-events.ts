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
