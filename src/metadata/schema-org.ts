// A dataset page's schema.org `Dataset` (docs/catalog.md#catalog-metadata): the JSON-LD block Google Dataset Search reads
// from the page, naming the downloads and the columns. Its context is the `https://schema.org`
// string Google expects. https://developers.google.com/search/docs/appearance/structured-data/dataset
import type { TableSchema } from "../schema/table-schema.ts";
import { recordTerms, schemaOrgDatasetTerms, type MetadataRecord } from "./record.ts";
import { PARQUET_MEDIA_TYPE, type VersionUrls } from "./urls.ts";

export function schemaOrgDataset(record: MetadataRecord, schema: TableSchema, urls: VersionUrls) {
  const terms = recordTerms(record);
  const publisher = {
    "@type": "Organization",
    name: terms.publisher,
    url: urls.publisher,
    ...(terms.contactPoint !== null ? { contactPoint: { "@type": "ContactPoint", name: terms.contactPoint } } : {}),
  };
  return {
    "@context": "https://schema.org",
    "@type": "Dataset",
    "@id": urls.page,
    ...schemaOrgDatasetTerms(terms, urls.page),
    isAccessibleForFree: true,
    creator: publisher,
    publisher,
    distribution: [
      { "@type": "DataDownload", contentUrl: urls.csv, encodingFormat: "text/csv", contentSize: `${record.csvBytes} B` },
      { "@type": "DataDownload", contentUrl: urls.gzip, encodingFormat: "application/gzip", contentSize: `${record.gzipBytes} B` },
      // Its size is not known when the version is described: the twin is built after the commit.
      { "@type": "DataDownload", contentUrl: urls.parquet, encodingFormat: PARQUET_MEDIA_TYPE },
    ],
    variableMeasured: schema.fields.map((field) => ({
      "@type": "PropertyValue",
      name: field.name,
      ...(field.description !== undefined ? { description: field.description } : {}),
    })),
  };
}

/**
 * JSON for inside `<script type="application/ld+json">`: the HTML parser ends the element at the
 * first `</script`, and `<!--` changes how it scans, so `<`, `>` and `&` are written as JSON
 * escapes (the same value to a JSON reader). Line separators and bidirectional controls are
 * escaped too, so no raw right-to-left override sits in the page outside an isolating element.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
