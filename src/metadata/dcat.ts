// One page of the public catalog as DCAT 3 (DCAT-AP 3 profile) JSON-LD (docs/catalog.md#catalog-metadata): what CKAN's
// DCAT harvester and the EU data portals read. Pages are Hydra PartialCollectionViews, so a
// harvester follows `hydra:next` to the end. The context is inline: no network to read it.
// https://www.w3.org/TR/vocab-dcat-3/ · https://semiceu.github.io/DCAT-AP/releases/3.0.0/ · https://www.hydra-cg.com/spec/latest/core/#collections
import { recordTerms, type MetadataRecord } from "./record.ts";
import { versionRecordUrl, versionUrls } from "./urls.ts";
import { parquetFileName } from "../read/download-name.ts";
import { PARQUET_MEDIA_TYPE } from "./urls.ts";

export const DCAT_CONTEXT = {
  dcat: "http://www.w3.org/ns/dcat#",
  dct: "http://purl.org/dc/terms/",
  foaf: "http://xmlns.com/foaf/0.1/",
  vcard: "http://www.w3.org/2006/vcard/ns#",
  hydra: "http://www.w3.org/ns/hydra/core#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  "dcat:downloadURL": { "@type": "@id" },
  "dcat:accessURL": { "@type": "@id" },
  "dcat:landingPage": { "@type": "@id" },
  "dcat:mediaType": { "@type": "@id" },
  "dcat:compressFormat": { "@type": "@id" },
  "dct:format": { "@type": "@id" },
  "dct:license": { "@type": "@id" },
  "dct:conformsTo": { "@type": "@id" },
  "foaf:homepage": { "@type": "@id" },
  "hydra:first": { "@type": "@id" },
  "hydra:next": { "@type": "@id" },
  "dct:issued": { "@type": "xsd:dateTime" },
  "dct:modified": { "@type": "xsd:dateTime" },
  "dcat:byteSize": { "@type": "xsd:nonNegativeInteger" },
} as const;

const IANA = "http://www.iana.org/assignments/media-types/";
/** The EU file-type authority table that DCAT-AP 3 asks `dct:format` to come from. */
const EU_FILE_TYPE = "http://publications.europa.eu/resource/authority/file-type/";

/** A published version of a dataset, for `dcat:hasVersion`. */
export interface CatalogVersion {
  id: string;
  created: string;
}

export interface CatalogEntry {
  record: MetadataRecord;
  /** Published versions, newest first (at most the feed's bound). */
  versions: CatalogVersion[];
}

export interface CatalogPage {
  origin: string;
  /** `…/catalog.jsonld`, the collection every page is a view of. */
  catalogUrl: string;
  /** This page's URL, and the first and next pages' (null on the last page). */
  pageUrl: string;
  firstUrl: string;
  nextUrl: string | null;
  entries: CatalogEntry[];
}

function agent(team: string, url: string) {
  return { "@id": url, "@type": "foaf:Agent", "foaf:name": team };
}

function dataset(origin: string, entry: CatalogEntry) {
  const { record } = entry;
  const terms = recordTerms(record);
  const urls = versionUrls(origin, record);
  const license = terms.license !== null ? { "dct:license": terms.license.url } : {};
  const distribution = (downloadURL: string, title: string, bytes: number, compressed: boolean) => ({
    "@type": "dcat:Distribution",
    "dct:title": title,
    "dcat:accessURL": downloadURL,
    "dcat:downloadURL": downloadURL,
    "dcat:mediaType": `${IANA}text/csv`,
    ...(compressed ? { "dcat:compressFormat": `${IANA}application/gzip` } : {}),
    "dct:format": `${EU_FILE_TYPE}${compressed ? "GZIP" : "CSV"}`,
    "dcat:byteSize": String(bytes),
    "dct:conformsTo": urls.schema,
    "dct:modified": terms.modified,
    ...license,
  });
  return {
    "@id": `${origin}/v1/dataset/${record.id}`,
    "@type": "dcat:Dataset",
    "dct:identifier": terms.identifier,
    "dct:title": terms.title,
    "dct:description": terms.summary,
    "dcat:keyword": terms.keywords,
    "dct:publisher": agent(terms.publisher, urls.publisher),
    ...(terms.contactPoint !== null ? { "dcat:contactPoint": { "@type": "vcard:Kind", "vcard:fn": terms.contactPoint } } : {}),
    "dct:issued": terms.issued,
    "dct:modified": terms.modified,
    "dcat:version": terms.version,
    "dcat:landingPage": urls.page,
    // Untyped on purpose: a harvester that collects every dcat:Dataset must not take each version for a dataset.
    "dcat:hasVersion": entry.versions.map((v) => ({ "@id": versionRecordUrl(origin, record.id, v.id), "dcat:version": v.id, "dct:issued": v.created })),
    "dcat:distribution": [
      distribution(urls.csv, `${record.fileName} (CSV)`, record.csvBytes, false),
      distribution(urls.gzip, `${record.fileName}.gz (gzip-compressed CSV)`, record.gzipBytes, true),
      // No byte size: the Parquet twin is built after the commit (docs/columnar.md).
      {
        "@type": "dcat:Distribution",
        "dct:title": `${parquetFileName(record.fileName)} (Apache Parquet)`,
        "dcat:accessURL": urls.parquet,
        "dcat:downloadURL": urls.parquet,
        "dcat:mediaType": `${IANA}${PARQUET_MEDIA_TYPE}`,
        "dct:format": `${EU_FILE_TYPE}PARQUET`,
        "dct:conformsTo": urls.schema,
        "dct:modified": terms.modified,
        ...license,
      },
    ],
  };
}

export function dcatCatalogPage(page: CatalogPage) {
  return {
    "@context": DCAT_CONTEXT,
    "@id": page.catalogUrl,
    "@type": ["dcat:Catalog", "hydra:Collection"],
    "dct:title": "pubset public datasets",
    "dct:description": "Every public dataset of this pubset service, newest first, with CSV, gzip and Parquet downloads of its current version.",
    "dct:publisher": agent("pubset", `${page.origin}/`),
    "foaf:homepage": `${page.origin}/`,
    "dcat:dataset": page.entries.map((entry) => dataset(page.origin, entry)),
    "hydra:view": {
      "@id": page.pageUrl,
      "@type": "hydra:PartialCollectionView",
      "hydra:first": page.firstUrl,
      ...(page.nextUrl !== null ? { "hydra:next": page.nextUrl } : {}),
    },
  };
}
