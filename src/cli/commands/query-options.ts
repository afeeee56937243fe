// The question `pubset rows` and `pubset export` ask of a version (docs/queries.md), as options.
import { stringOption, type OptionValues } from "../args.ts";
import type { RowsQuery } from "../../client/index.ts";

export const QUERY_OPTIONS = {
  where: { type: "string" },
  columns: { type: "string" },
  order: { type: "string" },
} as const;

export const QUERY_DETAILS = [
  "--where EXPR      only rows where EXPR holds, e.g. \"state = 'NY' AND population > 1000\"",
  "--columns A,B     only these columns, in this order",
  "--order C,-D      sort by C, then by D descending (default: file order)",
];

export function rowsQuery(values: OptionValues): RowsQuery {
  const query: RowsQuery = {};
  const where = stringOption(values, "where");
  const columns = stringOption(values, "columns");
  const order = stringOption(values, "order");
  if (where !== undefined) query.where = where;
  if (columns !== undefined) query.columns = columns;
  if (order !== undefined) query.order = order;
  return query;
}
