// A version as a Frictionless Tabular Data Package (docs/catalog.md#catalog-metadata), so Frictionless tools, CKAN and
// pandas readers load the CSV with its column types without guessing.
// https://specs.frictionlessdata.io/data-package/ · https://specs.frictionlessdata.io/tabular-data-resource/
import type { TableSchema } from "../schema/table-schema.ts";
import { recordTerms, type MetadataRecord } from "./record.ts";
import { PARQUET_MEDIA_TYPE, type VersionUrls } from "./urls.ts";

/** Data Package names: lower case, `a-z 0-9 . _ -` (Data Package §name); the id when nothing is left. */
export function packageName(text: string, fallback: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 100);
  return slug === "" ? fallback : slug;
}

/** CSV Dialect (https://specs.frictionlessdata.io/csv-dialect/) of every stored version (docs/api.md#writes). */
export function csvDialect(eol: "\n" | "\r\n") {
  return { delimiter: ",", lineTerminator: eol, quoteChar: '"', doubleQuote: true, skipInitialSpace: false, header: true };
}

export function dataPackage(record: MetadataRecord, schema: TableSchema, urls: VersionUrls) {
  const terms = recordTerms(record);
  const contributors: Array<Record<string, string>> = [{ title: terms.publisher, role: "publisher", path: urls.publisher }];
  if (terms.contactPoint !== null) contributors.push({ title: terms.contactPoint, role: "maintainer" });
  return {
    profile: "tabular-data-package",
    name: packageName(terms.title, terms.identifier),
    id: terms.identifier,
    title: terms.title,
    ...(terms.description !== null ? { description: terms.description } : {}),
    homepage: urls.page,
    version: terms.version,
    created: terms.modified,
    keywords: terms.keywords,
    contributors,
    ...(terms.license !== null ? { licenses: [{ ...(terms.license.spdx !== null ? { name: terms.license.spdx } : {}), path: terms.license.url }] } : {}),
    resources: [
      {
        profile: "tabular-data-resource",
        name: packageName(record.fileName.replace(/\.csv$/i, ""), "data"),
        path: urls.csv,
        format: "csv",
        mediatype: "text/csv",
        encoding: "utf-8",
        bytes: record.csvBytes,
        dialect: csvDialect(record.eol),
        schema,
      },
      {
        // The same rows as Apache Parquet, typed by the same schema, as Data Package v2 allows a
        // table in any format (docs/decisions.md); its size is unknown when described.
        profile: "tabular-data-resource",
        name: `${packageName(record.fileName.replace(/\.csv$/i, ""), "data")}-parquet`,
        path: urls.parquet,
        format: "parquet",
        mediatype: PARQUET_MEDIA_TYPE,
        schema,
      },
    ],
  };
}
