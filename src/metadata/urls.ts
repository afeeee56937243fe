// The absolute URLs the metadata documents name, all from the one public origin (docs/edge-and-caching.md) and
// all naming a version by its id, so a harvested link downloads exactly the bytes described.
// Pure. The paths match the routes in src/read/, src/metadata/ and src/catalog/.
import { parquetFileName } from "../read/download-name.ts";

/** IANA's media type for Apache Parquet. */
export const PARQUET_MEDIA_TYPE = "application/vnd.apache.parquet";

export interface VersionUrls {
  /** The dataset's catalog page. */
  page: string;
  /** The version's record (`GET /v1/dataset/:id/:version`). */
  record: string;
  csv: string;
  gzip: string;
  /** The Parquet twin, built after the commit: it may answer 503 for a few seconds (docs/columnar.md). */
  parquet: string;
  schema: string;
  datapackage: string;
  croissant: string;
  /** The team's datasets in the catalog: the publisher's page. */
  publisher: string;
}

/** The path of a version's document (`schema`, `datapackage.json`, `croissant.jsonld`). */
export function documentPath(datasetId: string, versionId: string, document: string): string {
  return `/v1/dataset/${datasetId}/${versionId}/${document}`;
}

export function teamPageUrl(origin: string, team: string): string {
  return `${origin}/?${new URLSearchParams({ team })}`;
}

export function versionRecordUrl(origin: string, datasetId: string, versionId: string): string {
  return `${origin}/v1/dataset/${datasetId}/${versionId}`;
}

export function versionUrls(origin: string, record: { id: string; version: string; fileName: string; team: string }): VersionUrls {
  const base = versionRecordUrl(origin, record.id, record.version);
  return {
    page: `${origin}/datasets/${record.id}`,
    record: base,
    csv: `${base}/${record.fileName}`,
    gzip: `${base}/${record.fileName}.gz`,
    parquet: `${base}/${parquetFileName(record.fileName)}`,
    schema: `${base}/schema`,
    datapackage: `${base}/datapackage.json`,
    croissant: `${base}/croissant.jsonld`,
    publisher: teamPageUrl(origin, record.team),
  };
}
