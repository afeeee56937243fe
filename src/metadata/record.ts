// The one mapping from a dataset record to catalog terms (docs/catalog.md#catalog-metadata), shared by the Data Package,
// Croissant, DCAT and schema.org builders so every document names the same title, keywords,
// licence, publisher, version and dates. Pure: no Hono, no bindings.
import { spdxLicense, spdxUrl } from "../model/licenses.ts";
import { fieldNames } from "../schema/field-names.ts";

/** What the documents say about one version of a dataset: its record and its content's size. */
export interface MetadataRecord {
  /** The dataset id. */
  id: string;
  team: string;
  owner: string;
  /** When the dataset's first version was made. */
  issued: string;
  /** The version id. */
  version: string;
  /** When this version was made. */
  created: string;
  name: string;
  properties: Record<string, unknown>;
  fileName: string;
  /** The header's cells. */
  columns: string[];
  rows: number;
  /** Bytes of the plain CSV download. */
  csvBytes: number;
  /** Bytes of the `.gz` download (the record's `source`). */
  gzipBytes: number;
  eol: "\n" | "\r\n";
}

export interface License {
  /** The SPDX identifier when `properties.license` was one, else null. */
  spdx: string | null;
  /** A URL that names the licence: the publisher's own, or SPDX's page for the identifier. */
  url: string;
}

export interface RecordTerms {
  identifier: string;
  title: string;
  /** `properties.description`, or null. */
  description: string | null;
  /**
   * The description, or when there is none a factual line about the content: DCAT-AP, Croissant
   * and Google Dataset Search all need one, and a made-up sentence would put words in the publisher's mouth.
   */
  summary: string;
  keywords: string[];
  contactPoint: string | null;
  license: License | null;
  publisher: string;
  version: string;
  /** ISO 8601: the version's `created`. */
  modified: string;
  /** ISO 8601: the dataset's first version. */
  issued: string;
}

/** An SPDX short identifier (`MIT`, `CC-BY-4.0`, `GPL-3.0-or-later`, `LicenseRef-x`); not an expression. */
const SPDX_ID = /^[A-Za-z0-9][A-Za-z0-9.+-]{0,99}$/;

function text(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** `properties.license`: an http(s) URL as given, an SPDX id as SPDX's page; anything else is no licence. */
export function licenseOf(value: unknown): License | null {
  const given = text(value);
  if (given === null) return null;
  if (/^https?:\/\//i.test(given)) {
    try {
      return { spdx: null, url: new URL(given).href };
    } catch {
      return null;
    }
  }
  // A listed id in SPDX's own spelling, so `cc-by-4.0` links to the page that exists.
  const id = spdxLicense(given) ?? given;
  return SPDX_ID.test(id) ? { spdx: id, url: spdxUrl(id) } : null;
}

const SUMMARY_COLUMNS = 10;

/** `1,204 rows of CSV in 3 columns: city, country, population.` */
export function contentSummary(record: Pick<MetadataRecord, "rows" | "columns">): string {
  const count = (n: number, one: string) => `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`;
  const named = fieldNames(record.columns).slice(0, SUMMARY_COLUMNS).join(", ") + (record.columns.length > SUMMARY_COLUMNS ? ", …" : "");
  return `${count(record.rows, "row")} of CSV in ${count(record.columns.length, "column")}${named === "" ? "" : `: ${named}`}.`;
}

export function recordTerms(record: MetadataRecord): RecordTerms {
  const p = record.properties;
  const keywords = Array.isArray(p.key_words) ? p.key_words.map(text).filter((w): w is string => w !== null) : [];
  const description = text(p.description);
  return {
    identifier: record.id,
    title: record.name,
    description,
    summary: description ?? contentSummary(record),
    keywords,
    contactPoint: text(p.contact_name),
    license: licenseOf(p.license),
    publisher: record.team,
    version: record.version,
    modified: record.created,
    issued: record.issued,
  };
}

/**
 * The schema.org `Dataset` properties the page's block and Croissant (which builds on
 * schema.org) both carry, from the one mapping: title, description, page, id, version, dates,
 * keywords, licence.
 */
export function schemaOrgDatasetTerms(terms: RecordTerms, page: string): Record<string, unknown> {
  return {
    name: terms.title,
    description: terms.summary,
    url: page,
    identifier: terms.identifier,
    version: terms.version,
    datePublished: terms.issued,
    dateModified: terms.modified,
    keywords: terms.keywords,
    ...(terms.license !== null ? { license: terms.license.url } : {}),
  };
}
