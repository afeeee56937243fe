// The exact field set of every dataset response (docs/api.md): no more, no fewer keys. Each function
// builds its object from scratch so a new column in D1 can never leak into a response.
import type { ListRow } from "../storage/dataset-lists-db.ts";
import type { VersionSummaryRow } from "./store.ts";
import type { DatasetRow, VersionRow } from "../model/dataset.ts";

export function sourcePath(datasetId: string, versionId: string, fileName: string): string {
  return `/v1/dataset/${datasetId}/${versionId}/${fileName}.gz`;
}

export function listItem(row: ListRow) {
  return { id: row.id, name: row.name, version: row.version, owner: row.owner, team: row.team, visibility: row.visibility };
}

export function teamListItem(row: ListRow) {
  return { id: row.id, name: row.name, version: row.version, visibility: row.visibility, created: row.created, properties: row.properties };
}

export function createdRecord(dataset: DatasetRow, version: VersionRow) {
  return {
    id: dataset.id,
    name: version.name,
    version: version.id,
    properties: version.properties,
    owner: dataset.ownerId,
    team: dataset.teamId,
    visibility: version.visibility,
    source: sourcePath(dataset.id, version.id, version.fileName),
  };
}

export function updatedRecord(dataset: DatasetRow, version: VersionRow) {
  return {
    id: dataset.id,
    name: version.name,
    version: version.id,
    owner: dataset.ownerId,
    team: dataset.teamId,
    visibility: version.visibility,
    source: sourcePath(dataset.id, version.id, version.fileName),
  };
}

export function appendedRecord(dataset: DatasetRow, version: VersionRow) {
  return { id: dataset.id, name: version.name, version: version.id, owner: dataset.ownerId, team: dataset.teamId, visibility: version.visibility };
}

export function versionSummary(row: VersionSummaryRow) {
  const summary = { version: row.id, created: row.created, rows: row.rowCount, bytes: row.rawBytes, columns: row.columns, parquet: row.parquet };
  return row.parquet === "failed" ? { ...summary, parquet_error: row.parquetError ?? "" } : summary;
}

/** RFC 8288 `Link` to a version's content, sent with its record: GET's body has no `source`
 * (the exact field set of docs/api.md), yet a client holding only an id must find the file to download. */
export function contentLink(dataset: DatasetRow, version: VersionRow): string {
  return `<${sourcePath(dataset.id, version.id, version.fileName)}>; rel="enclosure"; type="application/gzip"`;
}

/** RFC 8288 `Link` from a version's content to its Data Package (docs/column-types.md): a harvester holding only
 * the download URL finds the column types and the rest of the metadata. A path, like every `Link`. */
export function describedByLink(datasetId: string, versionId: string): string {
  return `</v1/dataset/${datasetId}/${versionId}/datapackage.json>; rel="describedby"; type="application/json"`;
}

export function versionRecord(dataset: DatasetRow, version: VersionRow) {
  return { id: dataset.id, name: version.name, version: version.id, visibility: version.visibility, created: version.created, properties: version.properties };
}
