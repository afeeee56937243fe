// Resolves `:version` (an id or `latest`) of a dataset the caller may read (SPEC A row 6, C).
// A draft resolves for the dataset's team only (SPEC B3); to anyone else it does not exist.
import { ApiError } from "../errors.ts";
import { getVersion, type DatasetRow, type StoredVersionRow } from "../storage/datasets-db.ts";
import { canReadVersion, readableDataset, type Caller } from "./access.ts";

export async function readableVersion(
  db: D1Database,
  datasetId: string,
  versionRef: string,
  caller: Caller | null,
): Promise<{ dataset: DatasetRow; version: StoredVersionRow }> {
  const dataset = await readableDataset(db, datasetId, caller);
  const versionId = versionRef === "latest" ? dataset.latestVersion : versionRef;
  const version = await getVersion(db, dataset.id, versionId);
  if (!version || !canReadVersion(dataset, version, caller)) throw new ApiError("not_found", `Dataset ${datasetId} has no version ${versionRef}.`);
  return { dataset, version };
}

export const PUBLIC_CACHE_CONTROL = "public, max-age=60, stale-while-revalidate=300";
export const PRIVATE_CACHE_CONTROL = "private, no-store";

/** SPEC B6: public data read anonymously may be cached by anyone; everything else by no one. */
export function cacheControlFor(dataset: DatasetRow, caller: Caller | null): string {
  return caller === null && dataset.visibility === "public" ? PUBLIC_CACHE_CONTROL : PRIVATE_CACHE_CONTROL;
}
