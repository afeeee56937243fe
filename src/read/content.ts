// Resolves `:id` and `:version` (an id or `latest`) as the caller may read them (docs/api.md).
// What the caller may not see is indistinguishable from what does not exist, so both are 404; a
// draft resolves for the dataset's team only (docs/api.md#who-sees-what). Each read asks D1 once:
// the dataset, the version and (for content) its segments in one batch.
import { ApiError } from "../model/errors.ts";
import { getVersionContent, getVersionSegments, type TwinRow } from "./store.ts";
import { canRead, canReadVersion } from "../model/access.ts";
import type { DatasetRow, SegmentRow, StoredVersionRow, Caller } from "../model/dataset.ts";
import { getDataset } from "../storage/datasets-db.ts";
import { MUTABLE_CACHE_CONTROL, PRIVATE_CACHE_CONTROL } from "../edge/cache-control.ts";

export interface ReadableVersion {
  dataset: DatasetRow;
  version: StoredVersionRow;
}

export async function readableVersion(db: D1Database, datasetId: string, versionRef: string, caller: Caller | null): Promise<ReadableVersion> {
  const { dataset, version } = await readable(db, datasetId, versionRef, caller, false);
  return { dataset, version };
}

/** The version and its segments with their parts, for the reads that open its content. */
export async function readableContent(
  db: D1Database,
  datasetId: string,
  versionRef: string,
  caller: Caller | null,
): Promise<ReadableVersion & { segments: SegmentRow[] }> {
  return readable(db, datasetId, versionRef, caller, true);
}

/** The version with its segments and its Parquet twin (null while pending), for the file downloads and the catalog's dataset page. */
export async function readableFiles(
  db: D1Database,
  datasetId: string,
  versionRef: string,
  caller: Caller | null,
): Promise<ReadableVersion & { segments: SegmentRow[]; twin: TwinRow | null }> {
  return readable(db, datasetId, versionRef, caller, true, true);
}

/**
 * The version and its Parquet twin, its segments left to a second round trip made only when
 * called (src/read/store.ts): for a query the twin may answer alone, so it waits on a smaller
 * batch. Who may read the version is decided here, by the same batch as ever.
 */
export async function readableTwin(
  db: D1Database,
  datasetId: string,
  versionRef: string,
  caller: Caller | null,
): Promise<ReadableVersion & { segments: () => Promise<SegmentRow[]>; twin: TwinRow | null }> {
  const { dataset, version, twin } = await readable(db, datasetId, versionRef, caller, false, true);
  let segments: Promise<SegmentRow[]> | null = null;
  return { dataset, version, twin, segments: () => (segments ??= getVersionSegments(db, version.id)) };
}

async function readable(db: D1Database, datasetId: string, versionRef: string, caller: Caller | null, withSegments: boolean, withTwin = false) {
  const { dataset, version, segments, twin } = await getVersionContent(db, datasetId, versionRef, withSegments, withTwin);
  if (!dataset || !canRead(dataset, caller)) throw new ApiError("not_found", `No dataset ${datasetId}.`);
  if (!version || !canReadVersion(dataset, version, caller)) throw new ApiError("not_found", `Dataset ${datasetId} has no version ${versionRef}.`);
  return { dataset, version, segments, twin };
}


/** docs/edge-and-caching.md: public data read anonymously may be cached by anyone; everything else by no one. */
export function cacheControlFor(dataset: DatasetRow, caller: Caller | null): string {
  return caller === null && dataset.visibility === "public" ? MUTABLE_CACHE_CONTROL : PRIVATE_CACHE_CONTROL;
}

export async function readableDataset(db: D1Database, id: string, caller: Caller | null): Promise<DatasetRow> {
  const dataset = await getDataset(db, id);
  if (!dataset || !canRead(dataset, caller)) throw new ApiError("not_found", `No dataset ${id}.`);
  return dataset;
}
