// Who may see and change a dataset (SPEC A, B1, B3). Access follows the dataset's current
// visibility; what the caller may not see is indistinguishable from what does not exist.
import { ApiError } from "../errors.ts";
import { getDataset, type DatasetRow } from "../storage/datasets-db.ts";

export interface Caller {
  keyId: string;
  teamId: string;
  userId: string;
}

export function canRead(dataset: DatasetRow, caller: Caller | null): boolean {
  return dataset.visibility === "public" || (caller !== null && caller.teamId === dataset.teamId);
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
