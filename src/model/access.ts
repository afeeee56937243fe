// Who may see each dataset and each of its versions (docs/api.md#who-sees-what). Access follows
// the dataset's current visibility, and outside the team only published versions exist: a
// version written while private is a draft until `"history": "public"` publishes it. Pure, so
// reads, writes, the catalog and the change feed apply the same rules.
import type { Caller, DatasetRow, StoredVersionRow } from "./dataset.ts";

export function canRead(dataset: DatasetRow, caller: Caller | null): boolean {
  return dataset.visibility === "public" || isTeamMember(dataset, caller);
}

export function isTeamMember(dataset: DatasetRow, caller: Caller | null): boolean {
  return caller !== null && caller.teamId === dataset.teamId;
}

/** A version written while public, or a draft published later; drafts are the team's alone. */
export function isPublished(version: Pick<StoredVersionRow, "visibility" | "historyPublic">): boolean {
  return version.visibility === "public" || version.historyPublic;
}

/** docs/api.md#who-sees-what: the team reads every version; anyone else only published ones of a public dataset. */
export function canReadVersion(dataset: DatasetRow, version: StoredVersionRow, caller: Caller | null): boolean {
  return isTeamMember(dataset, caller) || (dataset.visibility === "public" && isPublished(version));
}
