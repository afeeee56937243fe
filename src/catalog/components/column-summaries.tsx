// The dataset page's column summaries (docs/catalog.md "Column summaries"): for each column of
// the shown version its type, missing and distinct counts, then its range, mean and median with
// a histogram, or its most frequent values, read from the statistics document the version's
// Parquet build stored. While that build is pending or has failed, the page says so in words.
import type { ColumnStatistics } from "../../columnar/statistics/document.ts";
import type { NumericEntry } from "../../columnar/statistics/numeric-document.ts";
import type { StringEntry } from "../../columnar/statistics/string-column.ts";
import type { BooleanEntry } from "../../columnar/statistics/boolean-column.ts";
import type { ColumnStatisticsState } from "../dataset-data.ts";
import { formatCount, truncate } from "../format.ts";
import { PREVIEW_CELL_CHARS } from "../catalog-limits.ts";
import { estimated, formatScalar, formatShare, formatWhole } from "../statistics-format.ts";
import { Histogram, TopValues } from "./column-charts.tsx";

export interface ColumnSummariesProps {
  statistics: ColumnStatisticsState;
  /** Columns of the version, to say when only the first are summarised. */
  columnCount: number;
  /** The version's whole statistics document in the API. */
  documentPath: string;
}

export function ColumnSummaries({ statistics, columnCount, documentPath }: ColumnSummariesProps) {
  if (statistics.state === "pending") {
    return (
      <p class="notice" id="columns-state">
        Column statistics for this version are still being computed, together with its Parquet file. Reload the page in a few seconds to see them.
      </p>
    );
  }
  if (statistics.state === "failed") {
    return (
      <p class="notice" id="columns-state">
        Column statistics could not be computed for this version
        {statistics.reason ? <>: <span dir="auto">{truncate(statistics.reason, 200)}</span></> : "."}
      </p>
    );
  }
  const { rows, columns } = statistics.statistics;
  return (
    <>
      <p class="hint">
        Counted over all {formatCount(rows, "row", "rows")}
        {columns.length < columnCount ? `; the first ${columns.length} of ${columnCount} columns` : ""}. Every figure is exact unless it says “about”; the{" "}
        <a href={documentPath}>statistics document</a> has them as JSON.
      </p>
      <ol class="cols">
        {columns.map((column) => (
          <ColumnSummary column={column} rows={rows} />
        ))}
      </ol>
    </>
  );
}

function ColumnSummary({ column, rows }: { column: ColumnStatistics; rows: number }) {
  const name = truncate(column.name, PREVIEW_CELL_CHARS);
  return (
    <li>
      <h3>
        <span dir="auto">{name}</span> <span class="type">{column.type}</span>
      </h3>
      <dl class="stats">
        <dt>Missing</dt>
        <dd>{formatShare(column.nulls, rows)}</dd>
        <dt>Distinct</dt>
        <dd>{estimated(formatWhole(column.distinct), column.distinct_approximate)}</dd>
        <TypeFacts column={column} rows={rows} />
      </dl>
      <TypeChart column={column} name={name} rows={rows} />
    </li>
  );
}

const isBoolean = (c: ColumnStatistics): c is ColumnStatistics & BooleanEntry => c.type === "boolean";
const isString = (c: ColumnStatistics): c is ColumnStatistics & StringEntry => c.type === "string";
const isNumeric = (c: ColumnStatistics): c is ColumnStatistics & NumericEntry => !isBoolean(c) && !isString(c);

function TypeFacts({ column, rows }: { column: ColumnStatistics; rows: number }) {
  if (isBoolean(column)) {
    return (
      <>
        <dt>True</dt>
        <dd>{formatShare(column.true, rows)}</dd>
        <dt>False</dt>
        <dd>{formatShare(column.false, rows)}</dd>
      </>
    );
  }
  if (isString(column)) {
    if (column.min_length === null) return null;
    return (
      <>
        <dt>Length</dt>
        <dd>
          {column.min_length === column.max_length
            ? formatCount(column.min_length, "character", "characters")
            : `${formatWhole(column.min_length)} to ${formatCount(column.max_length ?? 0, "character", "characters")}`}
        </dd>
      </>
    );
  }
  if (!isNumeric(column)) return null;
  return (
    <>
      <dt>Range</dt>
      <dd>{column.min === null ? "no values" : `${formatScalar(column.min)} to ${formatScalar(column.max)}`}</dd>
      {column.mean !== undefined && column.mean !== null ? (
        <>
          <dt>Mean</dt>
          <dd>{formatScalar(column.mean)}</dd>
          <dt>Std. dev.</dt>
          <dd>{formatScalar(column.std)}</dd>
        </>
      ) : null}
      {column.median !== undefined && column.median !== null ? (
        <>
          <dt>Median</dt>
          <dd>{estimated(formatScalar(column.median), column.approximate)}</dd>
        </>
      ) : null}
      {column.nan ? (
        <>
          <dt>NaN</dt>
          <dd>{formatShare(column.nan, rows)}</dd>
        </>
      ) : null}
    </>
  );
}

function TypeChart({ column, name, rows }: { column: ColumnStatistics; name: string; rows: number }) {
  if (isBoolean(column)) {
    const values = [
      { value: "true", count: column.true },
      { value: "false", count: column.false },
    ];
    return <TopValues caption="Values" values={values.filter((v) => v.count > 0)} />;
  }
  if (isString(column)) {
    // A column whose values are all different has no most frequent ones worth a table.
    const values = rows - column.nulls;
    if (values > 1 && column.distinct === values && !column.distinct_approximate) return <p class="hint">Every value is different.</p>;
    return <TopValues caption={column.top_approximate ? "Most frequent values (approximate counts)" : "Most frequent values"} values={column.top} />;
  }
  if (!isNumeric(column)) return null;
  return <Histogram name={name} bins={column.histogram} approximate={column.approximate === true} />;
}
