// `GET /datasets/:id`: one public dataset — metadata, downloads and commands, a summary of
// each column, its licence, the rows to filter, sort and page, and its version history.
import { DatasetMeta, GetTheData, LicenseLink, MetadataHead } from "../components/dataset-summary.tsx";
import { PreviewTable } from "../components/preview-table.tsx";
import { ColumnSummaries } from "../components/column-summaries.tsx";
import { VersionsTable } from "../components/versions-table.tsx";
import type { DatasetPageData } from "../dataset-data.ts";
import { formatCount, knownProperties, truncate, datasetHref } from "../format.ts";
import { documentPath } from "../../metadata/urls.ts";
import { Layout } from "./layout.tsx";

export interface DatasetPageProps {
  data: DatasetPageData;
  origin: string;
}

export function DatasetPage({ data, origin }: DatasetPageProps) {
  const { dataset, latest } = data;
  const props = knownProperties(latest.properties);
  const older = data.olderVersionsCursor;
  return (
    <Layout
      title={latest.name}
      description={props.description !== "" ? truncate(props.description, 160) : undefined}
      head={<MetadataHead dataset={dataset} latest={latest} gzipBytes={data.downloads.gzipBytes} origin={origin} />}
    >
      <p class="muted">
        <a href="/">All datasets</a>
      </p>
      <div class="title-row">
        <h1 dir="auto">{latest.name}</h1>
        <LicenseLink value={latest.properties.license} />
      </div>
      {props.description !== "" ? <p class="description" dir="auto">
          {props.description}
        </p> : null}
      <DatasetMeta dataset={dataset} latest={latest} props={props} />

      <h2 id="download">Download</h2>
      <p>
        <code>{latest.fileName}</code>: {formatCount(latest.rowCount, "data row", "data rows")},{" "}
        {formatCount(latest.columns.length, "column", "columns")}.
      </p>
      <GetTheData datasetId={dataset.id} fileName={latest.fileName} downloads={data.downloads} origin={origin} />

      <h2 id="columns">Columns</h2>
      <ColumnSummaries statistics={data.statistics} columnCount={latest.columns.length} documentPath={documentPath(dataset.id, latest.id, "statistics")} />

      <h2 id="preview">Preview</h2>
      <PreviewTable
        datasetId={dataset.id}
        versionId={latest.id}
        columns={latest.columns}
        schema={latest.schema}
        preview={data.preview}
        request={data.previewRequest}
        totalRows={latest.rowCount}
      />

      <h2 id="versions">Version history</h2>
      {data.olderPage ? (
        <p>
          <a href={`${datasetHref(dataset.id)}#versions`}>Newest versions</a>
        </p>
      ) : null}
      <VersionsTable versions={data.versions} latestId={latest.id} />
      {older !== null ? (
        <p>
          <a href={`${datasetHref(dataset.id, older)}#versions`} rel="next">
            Older versions
          </a>
        </p>
      ) : null}
    </Layout>
  );
}
