// The statistics document of a version (docs/statistics.md): `{"rows", "columns"}` with one
// entry per field, in order, rendered from a TableSummary. Exact where unmarked; an estimate
// carries `distinct_approximate`, `approximate` (median and histogram) or `top_approximate`.
import type { FieldType, TableSchema } from "../../schema/table-schema.ts";
import { BooleanColumn, type BooleanEntry } from "./boolean-column.ts";
import { numericEntry, type NumericEntry } from "./numeric-document.ts";
import { StringColumn, type StringEntry } from "./string-column.ts";
import { summaryType, type ColumnSummary, type TableSummary } from "./table-summary.ts";

export interface ColumnHeader {
  name: string;
  type: FieldType;
  /** Missing cells. */
  nulls: number;
  /** Distinct non-null values (NaN counts as one). */
  distinct: number;
  distinct_approximate?: true;
}

export type ColumnStatistics = ColumnHeader & (NumericEntry | StringEntry | BooleanEntry);

export interface StatisticsDocument {
  rows: number;
  columns: ColumnStatistics[];
}

function columnStatistics(name: string, column: ColumnSummary): ColumnStatistics {
  if (column instanceof BooleanColumn) return { name, type: "boolean", nulls: column.nulls, distinct: column.distinct, ...column.entry() };
  if (column instanceof StringColumn) {
    const { distinct, approximate } = column.distinctCount();
    const header: ColumnHeader = { name, type: "string", nulls: column.nulls, distinct };
    if (approximate) header.distinct_approximate = true;
    return { ...header, ...column.entry() };
  }
  const header: ColumnHeader = { name, type: column.type, nulls: column.nulls, distinct: column.values.distinct() + (column.nan > 0 ? 1 : 0) };
  if (column.values.distinctApproximate) header.distinct_approximate = true;
  return { ...header, ...numericEntry(column) };
}

/** Renders `summary` for `schema`; throws RangeError when the summary was made for other types. */
export function statisticsDocument(schema: TableSchema, summary: TableSummary): StatisticsDocument {
  if (schema.fields.length !== summary.columns.length) throw new RangeError("statistics summary of another column count");
  return {
    rows: summary.rows,
    columns: schema.fields.map((field, i) => {
      const column = summary.columns[i]!;
      if (summaryType(column) !== field.type) throw new RangeError(`statistics summary of another type for ${field.name}`);
      return columnStatistics(field.name, column);
    }),
  };
}
