// A dataset as a reader may see it: what the caller may not see is indistinguishable from what
// does not exist (docs/api.md#errors), so both are 404.
import { ApiError } from "../model/errors.ts";
import type { Caller, DatasetRow } from "../model/dataset.ts";
import { canRead } from "../model/access.ts";
import { getDataset } from "../storage/datasets-db.ts";

export async function readableDataset(db: D1Database, id: string, caller: Caller | null): Promise<DatasetRow> {
  const dataset = await getDataset(db, id);
  if (!dataset || !canRead(dataset, caller)) throw new ApiError("not_found", `No dataset ${id}.`);
  return dataset;
}
