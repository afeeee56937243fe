// Readers who come from other data APIs write `?state=NY`, `?sort=-amount` or `?select=a,b`.
// /rows and /rows.csv refuse unknown parameters (docs/edge-and-caching.md "Strict queries"),
// and the refusal says what pubset's query parameters would ask instead (docs/queries.md).
import { quoteText } from "./language/column-kinds.ts";
import { whereName } from "./language/normalise.ts";

/**
 * Other APIs' names for ours (Socrata's `$…`, Datasette's `_…`, common REST spellings), and
 * `offset` and `limit`, ours on /rows only.
 */
const OURS_BY_THEIRS: Record<string, "where" | "columns" | "order" | "offset" | "limit"> = {
  offset: "offset",
  limit: "limit",
  filter: "where",
  $where: "where",
  _where: "where",
  select: "columns",
  fields: "columns",
  cols: "columns",
  $select: "columns",
  _col: "columns",
  sort: "order",
  sort_by: "order",
  sortby: "order",
  order_by: "order",
  orderby: "order",
  $order: "order",
  _sort: "order",
  _sort_desc: "order",
  skip: "offset",
  start: "offset",
  $offset: "offset",
  _offset: "offset",
  size: "limit",
  page_size: "limit",
  per_page: "limit",
  $limit: "limit",
  _size: "limit",
};

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * What to write instead of the unknown parameter `name` (given `value`), as a clause that
 * follows "unknown query parameter …; ". `paged` is false for /rows.csv, which answers every
 * matching row and so takes no offset or limit.
 */
export function unknownParameterHint(name: string, value: string | undefined, paged: boolean): string {
  const ours = OURS_BY_THEIRS[name.toLowerCase()];
  if (ours === "offset" || ours === "limit") {
    return paged ? `pages are asked with offset and limit` : `rows.csv answers every matching row; /rows pages them with offset and limit`;
  }
  if (ours !== undefined) return `this API asks that with ${ours} (docs/queries.md)`;
  // A text search elsewhere; here, LIKE in one column.
  if (["q", "query", "search"].includes(name.toLowerCase()) && value) return `rows are found with where, e.g. where=<column> LIKE ${quoteText(`%${value}%`)}`;
  if (value === undefined || value === "") return "the parameters here are where, columns and order" + (paged ? ", offset and limit" : "");
  const literal = NUMBER.test(value) ? value : quoteText(value);
  return `to keep the rows where the column ${JSON.stringify(name)} is ${value}, ask where=${whereName(name)} = ${literal}`;
}
