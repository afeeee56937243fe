// The first rows of the latest version as a table that scrolls inside its own box, header
// row kept in view (focusable, so keyboard users can scroll it too); long cells are cut. Each
// heading names its column's type (docs/catalog.md#catalog-metadata), and numbers are right-aligned.
import { PREVIEW_CELL_CHARS, PREVIEW_COLUMNS } from "../catalog-limits.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import { formatCount, truncate } from "../format.ts";

export interface PreviewTableProps {
  columns: string[];
  schema: TableSchema;
  rows: string[][];
  totalRows: number;
}

export function PreviewTable({ columns, schema, rows, totalRows }: PreviewTableProps) {
  if (rows.length === 0) return <p>This version has a header row and no data rows yet.</p>;
  const shown = columns.slice(0, PREVIEW_COLUMNS);
  const hidden = columns.length - shown.length;
  const cell = (value: string | undefined) => truncate(value ?? "", PREVIEW_CELL_CHARS);
  const typeOf = (c: number) => schema.fields[c]?.type ?? "string";
  const numeric = (c: number) => typeOf(c) === "integer" || typeOf(c) === "number";
  return (
    <div class="scroll tall" role="region" aria-labelledby="preview-caption" tabindex={0}>
      <table>
        <caption id="preview-caption">
          First {formatCount(rows.length, "row", "rows")} of {totalRows.toLocaleString("en-US")}
          {hidden > 0 ? `; first ${shown.length} of ${columns.length} columns` : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            {shown.map((name, c) => (
              <th scope="col" class={numeric(c) ? "num" : undefined}>
                <span dir="auto">{cell(name)}</span>
                <span class="type">{typeOf(c)}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr>
              <th scope="row">{i + 1}</th>
              {shown.map((_, c) => (numeric(c) ? <td class="num">{cell(row[c])}</td> : <td dir="auto">{cell(row[c])}</td>))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
