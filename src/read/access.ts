// Who may see and change a dataset and each of its versions (docs/api.md, docs/api.md#errors, docs/api.md#who-sees-what). Access follows
// the dataset's current visibility, and outside the team only published versions exist: a
// version written while private is a draft until `"history": "public"` publishes it. What the
// caller may not see is indistinguishable from what does not exist.
import { ApiError } from "../model/errors.ts";
import type { Caller } from "../model/dataset.ts";
import { getDataset } from "../storage/datasets-db.ts";
import type { DatasetRow, StoredVersionRow } from "../model/dataset.ts";


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

export async function readableDataset(db: D1Database, id: string, caller: Caller | null): Promise<DatasetRow> {
  const dataset = await getDataset(db, id);
  if (!dataset || !canRead(dataset, caller)) throw new ApiError("not_found", `No dataset ${id}.`);
  return dataset;
}

/** Writes need the owning team; another team gets 404 for a private dataset and 403 for a public one. */
export async function writableDataset(db: D1Database, id: string, caller: Caller): Promise<DatasetRow> {
  const dataset = await readableDataset(db, id, caller);
  if (dataset.teamId !== caller.teamId) throw new ApiError("forbidden", `Dataset ${id} belongs to another team.`);
  return dataset;
}
