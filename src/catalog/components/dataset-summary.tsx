// What a dataset page says about its dataset: the metadata as a description list (what it is,
// who to ask, who publishes it, when it was made and last changed); the "Get the data" box
// (downloads of the latest version, plain CSV and the gzip that is the record's `source`, and
// ready-to-copy commands for the CLI and curl); and what the page tells machines in its <head>
// (docs/catalog.md#catalog-metadata): the schema.org Dataset JSON-LD that Google Dataset Search
// reads, and `<link rel="alternate">` to the version's Table Schema, Data Package and Croissant
// documents, all of the same latest version the page shows.
import { type KnownProperties, homeHref, formatBytes } from "../format.ts";
import { KeyWords, Time } from "./inline.tsx";
import type { DatasetRow, VersionRow } from "../../model/dataset.ts";
import { downloadName, parquetFileName } from "../../read/download-name.ts";
import type { Downloads } from "../dataset-data.ts";
import { metadataRecord } from "../../read/metadata-record.ts";
import { jsonForScript, schemaOrgDataset } from "../../metadata/schema-org.ts";
import { documentPath, versionUrls } from "../../metadata/urls.ts";
import { licenseOf } from "../../metadata/record.ts";

export interface DatasetMetaProps {
  dataset: DatasetRow;
  latest: VersionRow;
  props: KnownProperties;
}

export function DatasetMeta({ dataset, latest, props }: DatasetMetaProps) {
  const none = <span class="muted">none given</span>;
  return (
    <dl class="meta">
      <dt>Key words</dt>
      <dd>{props.keyWords.length > 0 ? <KeyWords words={props.keyWords} label="Key words" /> : none}</dd>
      <dt>Contact</dt>
      <dd>{props.contactName !== "" ? <bdi>{props.contactName}</bdi> : none}</dd>
      <dt>Team</dt>
      <dd>
        <a href={homeHref({ team: dataset.teamId })}>{dataset.teamId}</a>
      </dd>
      <dt>Owner</dt>
      <dd>
        <a href={homeHref({ owner: dataset.ownerId })}>{dataset.ownerId}</a>
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={dataset.created} />
      </dd>
      <dt>Last update</dt>
      <dd>
        <Time iso={latest.created} />
      </dd>
      <dt>Dataset id</dt>
      <dd>
        <code>{dataset.id}</code>
      </dd>
    </dl>
  );
}

/** The licence beside the title, linked (`rel="license"`): an SPDX id to SPDX's page, a URL to
 * itself; nothing when `properties.license` is neither (docs/catalog.md). */
export function LicenseLink({ value }: { value: unknown }) {
  const license = licenseOf(value);
  if (license === null) return null;
  return (
    <p class="license">
      Licence:{" "}
      <a href={license.url} rel="license" dir="auto">
        {license.spdx ?? license.url}
      </a>
    </p>
  );
}

export interface GetTheDataProps {
  datasetId: string;
  fileName: string;
  downloads: Downloads;
  /** The configured public origin (PUBLIC_ORIGIN), so the curl line works pasted anywhere. */
  origin: string;
}

export function GetTheData({ datasetId, fileName, downloads, origin }: GetTheDataProps) {
  const latestCsv = `${origin}/v1/dataset/${datasetId}/latest/${fileName}`;
  const latestParquet = `${origin}/v1/dataset/${datasetId}/latest/${parquetFileName(fileName)}`;
  const saveAs = downloadName(fileName, false);
  const commands = [
    `pubset download ${datasetId} -o ${saveAs} --url ${origin}`,
    `curl -fL --compressed -o ${saveAs} ${latestCsv}`,
    `duckdb -c "SELECT * FROM '${latestParquet}' LIMIT 10"`,
  ].join("\n");
  return (
    <>
      <p>
        <a class="button" href={downloads.csvPath} download={saveAs}>
          Download CSV ({formatBytes(downloads.csvBytes)})
        </a>
        <a class="button" href={downloads.gzipPath} download={downloadName(fileName, true)}>
          Download gzip ({formatBytes(downloads.gzipBytes)})
        </a>
        <a class="button" href={downloads.parquetPath} download={parquetFileName(fileName)}>
          Download Parquet
        </a>
      </p>
      <p id="commands-hint" class="hint">
        From a terminal, with the pubset CLI, curl or DuckDB (all read the latest version; DuckDB
        reads the Parquet file by URL):
      </p>
      <pre tabindex={0} aria-describedby="commands-hint">
        <code>{commands}</code>
      </pre>
    </>
  );
}

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
