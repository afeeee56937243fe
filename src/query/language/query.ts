// The query language's one entry point (docs/queries.md): reads `where`, `columns` and `order`
// against a version's Table Schema and returns everything a scan needs — the predicate, the
// order, the columns to read and answer, and the normalised query that keys the cache.
import type { TableSchema } from "../../schema/table-schema.ts";
import { listNames, resolveColumn } from "./column-names.ts";
import { compilePredicate, type Row } from "./evaluate.ts";
import { normaliseColumns, normaliseOrder, normaliseWhere } from "./normalise.ts";
import { rankedComparator, type OrderTerm, type Ranked } from "./ordering.ts";
import { parseWhere } from "./parser.ts";
import { failure, queryError, quoteFound, type QueryParameter, type Result } from "./query-error.ts";
import { typeWhere, type TypedExpr } from "./typing.ts";

/** The parameters as decoded from the URL; absent, empty or blank means the default. */
export interface QueryInput {
  where?: string | null;
  columns?: string | null;
  order?: string | null;
}

export interface NormalisedQuery {
  where: string | null;
  columns: string | null;
  order: string | null;
}

export interface CompiledQuery {
  /** The typed `where`, or null when every row matches. */
  where: TypedExpr | null;
  /** The answer's columns, as field indices, in the order asked. */
  columns: number[];
  order: OrderTerm[];
  /** Field indices the scan must read (where ∪ columns ∪ order), ascending. */
  needed: number[];
  /** Whether a row (cells in schema order, typed as castCell gives them) matches. */
  matches: (row: Row) => boolean;
  /** The order on ranked rows (see ordering.ts `rank`): the terms, then file position. */
  compare: <T>(a: Ranked<T>, b: Ranked<T>) => number;
  normalised: NormalisedQuery;
  /** The normalised parameters as a query string (`columns=…&order=…&where=…`, absent ones left out). */
  cacheKey: string;
}

function given(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === "" ? null : value;
}

/** Names in `columns` or `order` resolved to field indices, each at most once. */
function resolveList(parameter: QueryParameter, input: string, schema: TableSchema): Result<{ column: number; descending: boolean }[]> {
  const listed = listNames(parameter, input);
  if (!listed.ok) return listed;
  const seen = new Set<number>();
  const resolved: { column: number; descending: boolean }[] = [];
  for (const item of listed.value) {
    const column = resolveColumn(schema, parameter, input, item.nameStart, item.name);
    if (!column.ok) return column;
    if (seen.has(column.value)) return failure(queryError(parameter, input, item.start, "each column at most once", `${quoteFound(item.name)} again`));
    seen.add(column.value);
    resolved.push({ column: column.value, descending: item.descending });
  }
  return { ok: true, value: resolved };
}

/** The columns `expr` reads. */
export function whereColumns(expr: TypedExpr | null, into: Set<number> = new Set()): Set<number> {
  if (expr === null) return into;
  switch (expr.kind) {
    case "and":
    case "or":
      for (const item of expr.items) whereColumns(item, into);
      return into;
    case "not":
      return whereColumns(expr.item, into);
    default:
      into.add(expr.column);
      return into;
  }
}

export function compileQuery(input: QueryInput, schema: TableSchema): Result<CompiledQuery> {
  let where: TypedExpr | null = null;
  const whereText = given(input.where);
  if (whereText !== null) {
    const parsed = parseWhere(whereText);
    if (!parsed.ok) return parsed;
    const typed = typeWhere(parsed.value, schema, whereText);
    if (!typed.ok) return typed;
    where = typed.value;
  }
  let columns = schema.fields.map((_, i) => i);
  const columnsText = given(input.columns);
  if (columnsText !== null) {
    const listed = resolveList("columns", columnsText, schema);
    if (!listed.ok) return listed;
    columns = listed.value.map((item) => item.column);
  }
  let order: OrderTerm[] = [];
  const orderText = given(input.order);
  if (orderText !== null) {
    const listed = resolveList("order", orderText, schema);
    if (!listed.ok) return listed;
    order = listed.value.map(({ column, descending }) => ({ column, type: schema.fields[column]!.type, descending }));
  }
  const needed = whereColumns(where, new Set(columns));
  for (const term of order) needed.add(term.column);
  const normalised: NormalisedQuery = {
    where: where === null ? null : normaliseWhere(where, schema),
    columns: normaliseColumns(columns, schema),
    order: normaliseOrder(order, schema),
  };
  const key = new URLSearchParams();
  for (const name of ["columns", "order", "where"] as const) {
    const value = normalised[name];
    if (value !== null) key.set(name, value);
  }
  return {
    ok: true,
    value: {
      where,
      columns,
      order,
      needed: [...needed].sort((a, b) => a - b),
      matches: compilePredicate(where),
      compare: rankedComparator(order),
      normalised,
      cacheKey: key.toString(),
    },
  };
}
