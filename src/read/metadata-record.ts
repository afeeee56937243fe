// What the metadata documents (src/metadata/) describe of one readable version: its record and
// its content's sizes, read with the same visibility rules as the record itself (docs/catalog.md#catalog-metadata: `404`
// wherever the record would be `404`, drafts the team's alone).
import type { MetadataRecord } from "../metadata/record.ts";
import { getVersionSegments } from "../storage/datasets-db.ts";
import { joinedGzipLength } from "../wire/gzip-join.ts";
import type { DatasetRow, VersionRow } from "../model/dataset.ts";

export function metadataRecord(dataset: DatasetRow, version: VersionRow, gzipBytes: number): MetadataRecord {
  return {
    id: dataset.id,
    team: dataset.teamId,
    owner: dataset.ownerId,
    issued: dataset.created,
    version: version.id,
    created: version.created,
    name: version.name,
    properties: version.properties,
    fileName: version.fileName,
    columns: version.columns,
    rows: version.rowCount,
    csvBytes: version.rawBytes,
    gzipBytes,
    eol: version.eol,
  };
}

/** The record of a version whose `.gz` size is read from its segment list (one D1 query). */
export async function loadMetadataRecord(db: D1Database, dataset: DatasetRow, version: VersionRow): Promise<MetadataRecord> {
  const segments = await getVersionSegments(db, version.id);
  return metadataRecord(dataset, version, joinedGzipLength(segments.map((s) => s.compressedBytes)));
}
