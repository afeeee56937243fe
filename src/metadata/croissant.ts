// A version as Croissant 1.1 JSON-LD (docs/catalog.md#catalog-metadata), the metadata machine-learning hosts and loaders
// (mlcroissant, TFDS, Hugging Face, Kaggle, OpenML) read: the files and one record set whose
// fields mirror the Table Schema. The context is inline, so reading it needs no network.
// http://mlcommons.org/croissant/1.1 (Croissant Format Specification 1.1)
import { isPatternFormat } from "../schema/strftime.ts";
import type { Field, FieldType, TableSchema } from "../schema/table-schema.ts";
import { recordTerms, schemaOrgDatasetTerms, type MetadataRecord } from "./record.ts";
import type { VersionUrls } from "./urls.ts";
import { parquetFileName } from "../read/download-name.ts";
import { PARQUET_MEDIA_TYPE } from "./urls.ts";

export const CROISSANT_CONFORMS_TO = "http://mlcommons.org/croissant/1.1";

/** Croissant's terms as its published context maps them, less its default `@language` (publishers write in any language). */
export const CROISSANT_CONTEXT = {
  "@vocab": "https://schema.org/",
  sc: "https://schema.org/",
  cr: "http://mlcommons.org/croissant/",
  rai: "http://mlcommons.org/croissant/RAI/",
  dct: "http://purl.org/dc/terms/",
  citeAs: "cr:citeAs",
  column: "cr:column",
  conformsTo: "dct:conformsTo",
  data: { "@id": "cr:data", "@type": "@json" },
  dataType: { "@id": "cr:dataType", "@type": "@vocab" },
  examples: { "@id": "cr:examples", "@type": "@json" },
  extract: "cr:extract",
  field: "cr:field",
  fileProperty: "cr:fileProperty",
  fileObject: "cr:fileObject",
  fileSet: "cr:fileSet",
  format: "cr:format",
  includes: "cr:includes",
  isLiveDataset: "cr:isLiveDataset",
  jsonPath: "cr:jsonPath",
  key: "cr:key",
  md5: "cr:md5",
  parentField: "cr:parentField",
  path: "cr:path",
  recordSet: "cr:recordSet",
  references: "cr:references",
  regex: "cr:regex",
  repeated: "cr:repeated",
  replace: "cr:replace",
  samplingRate: "cr:samplingRate",
  separator: "cr:separator",
  source: "cr:source",
  subField: "cr:subField",
  transform: "cr:transform",
} as const;

const DATA_TYPES: Record<FieldType, string> = {
  integer: "sc:Integer",
  number: "sc:Float",
  boolean: "sc:Boolean",
  date: "sc:Date",
  datetime: "sc:DateTime",
  time: "sc:Time",
  string: "sc:Text",
};

/**
 * A field's Croissant type. Croissant has no decimal or group characters and no custom boolean
 * words, so a field declared with them (`1.234,5`) is offered as text a loader can always read.
 */
export function croissantDataType(field: Field): string {
  const customNumber = (field.decimalChar !== undefined && field.decimalChar !== ".") || (field.groupChar !== undefined && field.groupChar !== "");
  const customBoolean = field.trueValues !== undefined || field.falseValues !== undefined;
  if ((field.type === "number" || field.type === "integer") && customNumber) return DATA_TYPES.string;
  if (field.type === "boolean" && customBoolean) return DATA_TYPES.string;
  return DATA_TYPES[field.type];
}

const RECORD_SET_ID = "rows";

export function croissant(record: MetadataRecord, schema: TableSchema, urls: VersionUrls) {
  const terms = recordTerms(record);
  const csvId = record.fileName;
  const gzipId = `${record.fileName}.gz`;
  return {
    "@context": CROISSANT_CONTEXT,
    "@type": "sc:Dataset",
    conformsTo: CROISSANT_CONFORMS_TO,
    ...schemaOrgDatasetTerms(terms, urls.page),
    creator: {
      "@type": "sc:Organization",
      name: terms.publisher,
      url: urls.publisher,
      ...(terms.contactPoint !== null ? { contactPoint: { "@type": "sc:ContactPoint", name: terms.contactPoint } } : {}),
    },
    distribution: [
      {
        "@type": "cr:FileObject",
        "@id": csvId,
        name: record.fileName,
        contentUrl: urls.csv,
        encodingFormat: "text/csv",
        contentSize: `${record.csvBytes} B`,
      },
      {
        "@type": "cr:FileObject",
        "@id": gzipId,
        name: gzipId,
        contentUrl: urls.gzip,
        encodingFormat: "application/gzip",
        contentSize: `${record.gzipBytes} B`,
      },
      {
        // The same rows typed, for loaders that read Parquet; its size is unknown when described.
        "@type": "cr:FileObject",
        "@id": parquetFileName(record.fileName),
        name: parquetFileName(record.fileName),
        contentUrl: urls.parquet,
        encodingFormat: PARQUET_MEDIA_TYPE,
      },
    ],
    recordSet: [
      {
        "@type": "cr:RecordSet",
        "@id": RECORD_SET_ID,
        name: RECORD_SET_ID,
        description: `The rows of ${record.fileName}, one record each.`,
        field: schema.fields.map((field) => ({
          "@type": "cr:Field",
          // Field names are unique (src/schema/field-names.ts), so their ids are.
          "@id": `${RECORD_SET_ID}/${encodeURIComponent(field.name)}`,
          name: field.name,
          ...(field.description !== undefined ? { description: field.description } : {}),
          dataType: croissantDataType(field),
          // A pattern format is Croissant's `format` too: both read dates with strptime's directives.
          source: { fileObject: { "@id": csvId }, extract: { column: field.name }, ...(isPatternFormat(field.format) ? { format: field.format } : {}) },
        })),
      },
    ],
  };
}
