// The preview of the latest version (docs/catalog.md "Filter, sort and page"): a filter form
// that takes a `where` expression, column headings that sort, the rows as a table that scrolls
// inside its own box (header row kept in view, focusable so keyboard users can scroll it too),
// pages with a row number to jump to, and the answer as a CSV download. All of it is GET forms
// and links, so it works without script and every state has its own URL. Each heading names its
// column's type (docs/catalog.md#catalog-metadata); numbers are right-aligned; long cells are cut.
// Each text cell takes its direction from its own text (the stylesheet's `unicode-bidi:
// plaintext`, which is what `dir="auto"` on every cell would do, at no bytes per cell).
import { PREVIEW_CELL_CHARS, PREVIEW_COLUMNS, PREVIEW_ROWS } from "../catalog-limits.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import type { PreviewState } from "../dataset-data.ts";
import { formatCount, truncate } from "../format.ts";
import { MAX_WHERE_BYTES } from "../../query/language/syntax.ts";
import { headingOrder, headingSort, isQueried, previewHref, type PreviewRequest } from "../preview-query.ts";

export interface PreviewProps {
  datasetId: string;
  /** The shown version's id, for the CSV download of the answer (an explicit version: cached for good). */
  versionId: string;
  columns: string[];
  schema: TableSchema;
  preview: PreviewState;
  request: PreviewRequest;
  totalRows: number;
}

const count = (n: number) => n.toLocaleString("en-US");

function FilterForm({ request, error }: { request: PreviewRequest; error: string | null }) {
  const described = error !== null ? "where-hint where-error" : "where-hint";
  return (
    <form class="search" method="get" action="#preview" role="search" aria-label="Rows">
      <div class="q">
        <label for="where">Filter rows</label>
        <input
          id="where"
          name="where"
          type="search"
          value={request.where}
          maxlength={MAX_WHERE_BYTES}
          spellcheck={false}
          autocomplete="off"
          aria-describedby={described}
          aria-invalid={error !== null ? "true" : undefined}
        />
      </div>
      {request.order !== "" ? <input type="hidden" name="order" value={request.order} /> : null}
      <div>
        <button type="submit">Filter</button>
      </div>
      <p id="where-hint" class="hint">
        As SQL's WHERE: <code>state = 'NY' AND pop &gt; 1000</code>, <code>day &gt;= '2024-01-01'</code>, <code>name LIKE 'Ab%'</code>, <code>x IS NULL</code> (
        <a href="/docs">reference</a>).
      </p>
    </form>
  );
}

/** The expression with a caret under the character the error points at (1-based, in code points). */
function ErrorPointer({ text, position }: { text: string; position: number }) {
  const before = [...text].slice(0, Math.max(0, position - 1)).join("");
  return (
    <pre class="pointer" aria-hidden="true">
      {text}
      {"\n"}
      {" ".repeat([...before].length)}^
    </pre>
  );
}

function Pager({ datasetId, request, matched, shown }: { datasetId: string; request: PreviewRequest; matched: number; shown: number }) {
  const first = request.row;
  const previous = first > 1 ? Math.max(1, first - PREVIEW_ROWS) : null;
  const next = first + shown <= matched && shown > 0 ? first + shown : null;
  const last = matched > 0 ? Math.floor((matched - 1) / PREVIEW_ROWS) * PREVIEW_ROWS + 1 : 1;
  return (
    <nav class="pager preview-pager" aria-label="Preview pages">
      {first > 1 ? <a href={previewHref(datasetId, { ...request, row: 1 })}>First rows</a> : null}
      {previous !== null ? (
        <a href={previewHref(datasetId, { ...request, row: previous })} rel="prev">
          Previous {PREVIEW_ROWS}
        </a>
      ) : null}
      {next !== null ? (
        <a href={previewHref(datasetId, { ...request, row: next })} rel="next">
          Next {PREVIEW_ROWS}
        </a>
      ) : null}
      {next !== null && last > next ? <a href={previewHref(datasetId, { ...request, row: last })}>Last rows</a> : null}
      <form method="get" action="#preview" class="jump">
        {request.where !== "" ? <input type="hidden" name="where" value={request.where} /> : null}
        {request.order !== "" ? <input type="hidden" name="order" value={request.order} /> : null}
        <label for="row">Go to row</label>
        <input id="row" name="row" type="number" min={1} max={Math.max(1, matched)} value={String(first)} inputmode="numeric" />
        <button type="submit">Go</button>
      </form>
    </nav>
  );
}

function csvHref(datasetId: string, versionId: string, request: PreviewRequest): string {
  const params = new URLSearchParams();
  if (request.where !== "") params.set("where", request.where);
  if (request.order !== "") params.set("order", request.order);
  const search = params.toString();
  return `/v1/dataset/${datasetId}/${versionId}/rows.csv${search === "" ? "" : `?${search}`}`;
}

export function PreviewTable({ datasetId, versionId, columns, schema, preview, request, totalRows }: PreviewProps) {
  const queried = isQueried(request);
  const error = preview.state === "invalid" ? preview.error : null;
  const form = <FilterForm request={request} error={error === null ? null : error.detail} />;
  if (preview.state === "invalid") {
    return (
      <>
        {form}
        <div id="where-error" class="notice" role="alert">
          <p>
            <strong>This {preview.error.parameter === "order" ? "sort" : "filter"} cannot run.</strong> {preview.error.detail}
          </p>
          <ErrorPointer text={preview.error.parameter === "order" ? request.order : request.where} position={preview.error.position} />
          <p>
            <a href={previewHref(datasetId, { where: "", order: "", row: 1 })}>Show the first rows without it</a>
          </p>
        </div>
      </>
    );
  }
  if (totalRows === 0) return <p>This version has a header row and no data rows yet.</p>;
  const { rows, fileRows, matched, partial } = preview;
  const shown = columns.slice(0, PREVIEW_COLUMNS);
  const hidden = columns.length - shown.length;
  const cell = (value: string | undefined) => truncate(value ?? "", PREVIEW_CELL_CHARS);
  const typeOf = (c: number) => schema.fields[c]?.type ?? "string";
  const numeric = (c: number) => typeOf(c) === "integer" || typeOf(c) === "number";
  const fieldName = (c: number) => schema.fields[c]?.name ?? columns[c] ?? "";
  const last = request.row + rows.length - 1;
  const matching = request.where !== "" ? `${count(matched)}${partial ? " or more" : ""} matching rows (of ${count(totalRows)})` : count(totalRows);
  const range =
    rows.length === 0
      ? `No rows from row ${count(request.row)} on, of ${matching}`
      : !queried && request.row === 1
        ? `First ${formatCount(rows.length, "row", "rows")} of ${count(totalRows)}`
        : `Rows ${count(request.row)}–${count(last)} of ${matching}`;
  return (
    <>
      {form}
      {partial ? (
        <p class="notice" role="status">
          The filter stopped at its scan budget before reading every row: the rows shown match, and more may. The CSV download below reads every row.
        </p>
      ) : null}
      {queried ? (
        <p class="acts">
          <a class="button" href={csvHref(datasetId, versionId, request)} download>
            Download these rows as CSV
          </a>
          <a href={previewHref(datasetId, { where: "", order: "", row: 1 })}>Clear the filter and sort</a>
        </p>
      ) : null}
      <div class="scroll tall" role="region" aria-labelledby="preview-caption" tabindex={0}>
        <table>
          <caption id="preview-caption">
            {range}
            {hidden > 0 ? `; first ${shown.length} of ${columns.length} columns` : ""}
            {request.order !== "" ? `; sorted by ${request.order}` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">
                <span class="vh">Row in file</span>
                <span aria-hidden="true">#</span>
              </th>
              {shown.map((name, c) => {
                const sort = headingSort(request.order, fieldName(c));
                const next = headingOrder(request.order, fieldName(c));
                return (
                  <th scope="col" class={numeric(c) ? "num" : undefined} aria-sort={sort}>
                    <a href={previewHref(datasetId, { ...request, order: next, row: 1 })}>
                      <span dir="auto">{cell(name)}</span>
                      {sort !== undefined ? <span aria-hidden="true">{sort === "ascending" ? " ▲" : " ▼"}</span> : null}
                    </a>
                    <span class="type">{typeOf(c)}</span>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr>
                <th scope="row">{count(fileRows[i] ?? request.row + i)}</th>
                {shown.map((_, c) => (numeric(c) ? <td class="num">{cell(row[c])}</td> : <td>{cell(row[c])}</td>))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {request.row > 1 || matched > rows.length ? <Pager datasetId={datasetId} request={request} matched={matched} shown={rows.length} /> : null}
    </>
  );
}
