// What a dataset page tells machines in its <head> (docs/catalog.md#catalog-metadata): the schema.org Dataset JSON-LD that
// Google Dataset Search reads, and `<link rel="alternate">` to the version's Table Schema, Data
// Package and Croissant documents. Describes the same latest version the page shows.
import { metadataRecord } from "../../read/metadata-record.ts";
import { jsonForScript, schemaOrgDataset } from "../../metadata/schema-org.ts";
import { documentPath, versionUrls } from "../../metadata/urls.ts";
import type { DatasetRow, VersionRow } from "../../model/dataset.ts";

export interface MetadataHeadProps {
  dataset: DatasetRow;
  latest: VersionRow;
  gzipBytes: number;
  origin: string;
}

export function MetadataHead({ dataset, latest, gzipBytes, origin }: MetadataHeadProps) {
  const record = metadataRecord(dataset, latest, gzipBytes);
  const urls = versionUrls(origin, record);
  // Escaped for a <script> element by jsonForScript, so publisher text cannot end it.
  const jsonLd = jsonForScript(schemaOrgDataset(record, latest.schema, urls));
  // Paths, like every other link on the page; the JSON-LD's URLs are absolute, as Google needs.
  const path = (document: string) => documentPath(dataset.id, latest.id, document);
  return (
    <>
      <link rel="alternate" type="application/json" href={path("schema")} title="Table Schema" />
      <link rel="alternate" type="application/json" href={path("datapackage.json")} title="Frictionless Data Package" />
      <link rel="alternate" type="application/ld+json" href={path("croissant.jsonld")} title="Croissant" />
      <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} />
    </>
  );
}
