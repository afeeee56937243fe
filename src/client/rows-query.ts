// A question to `/rows` and `/rows.csv` as query parameters (docs/queries.md): lists of names
// are joined with commas, and a name that holds a comma or a double quote, or begins with `-`
// or a space, is written in double quotes with `""` inside, as the API reads them.
import type { RowsQuery } from "./types.ts";

function listedName(name: string): string {
  return /^[^,"\s-][^,"]*$/.test(name) && name.trim() === name ? name : `"${name.replaceAll('"', '""')}"`;
}

/** `columns` as the API's text; a string is sent as written. */
function nameList(value: string | readonly string[]): string {
  return typeof value === "string" ? value : value.map(listedName).join(",");
}

/** `order` as the API's text: in a list, a name beginning with `-` is descending. */
function orderList(value: string | readonly string[]): string {
  return typeof value === "string" ? value : value.map((term) => (term.startsWith("-") ? `-${listedName(term.slice(1))}` : listedName(term))).join(",");
}

export function rowsQueryParams(query: RowsQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (query.where !== undefined && query.where !== "") params.set("where", query.where);
  if (query.columns !== undefined) params.set("columns", nameList(query.columns));
  if (query.order !== undefined) params.set("order", orderList(query.order));
  return params;
}
