// One spelling for each query (docs/queries.md#normalisation), so answers can be cached by it:
// spaces, keyword case, `<>`, redundant parentheses, quoting, nested AND/OR, NOT NOT, number
// spellings and the order of an IN list all disappear. Written back in the query syntax, so a
// normalised query parses to the same normalised query.
import type { TableSchema } from "../../schema/table-schema.ts";
import { COLUMN_KINDS, quoteText } from "./column-kinds.ts";
import { isBareName } from "./lexer.ts";
import type { OrderTerm } from "./ordering.ts";
import type { TypedExpr, TypedValue } from "./typing.ts";

/** A column name as `where` spells it: bare when it can be, else in double quotes. */
export function whereName(name: string): string {
  return isBareName(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** A name in `columns` or `order`: bare unless it holds a comma or quote, has spaces at an end, is empty, or (in order) starts with `-`. */
export function listName(name: string): string {
  const plain = name !== "" && !/[",]/.test(name) && name.trim() === name && !name.startsWith("-");
  return plain ? name : `"${name.replaceAll('"', '""')}"`;
}

/** IN's literals sorted by the column's order, each once. */
function inValues(type: keyof typeof COLUMN_KINDS, values: readonly TypedValue[]): string[] {
  const kind = COLUMN_KINDS[type];
  const sorted = [...values].sort((a, b) => kind.compare(a.key, b.key));
  return sorted.filter((value, i) => i === 0 || kind.compare(sorted[i - 1]!.key, value.key) !== 0).map((value) => value.canonical);
}

/** `expr` with NOT NOT removed and nested AND/OR of the same kind flattened. */
export function simplify(expr: TypedExpr): TypedExpr {
  switch (expr.kind) {
    case "not":
      return expr.item.kind === "not" ? simplify(expr.item.item) : { kind: "not", item: simplify(expr.item) };
    case "and":
    case "or": {
      const items = expr.items.map(simplify).flatMap((item) => (item.kind === expr.kind ? item.items : [item]));
      return { kind: expr.kind, items };
    }
    default:
      return expr;
  }
}

/** Precedence: OR 1, AND 2, NOT 3, predicates 4; a child binding looser than its place gets parentheses. */
function print(expr: TypedExpr, schema: TableSchema, place: number): string {
  const wrap = (text: string, precedence: number) => (precedence < place ? `(${text})` : text);
  switch (expr.kind) {
    case "or":
      return wrap(expr.items.map((item) => print(item, schema, 2)).join(" OR "), 1);
    case "and":
      return wrap(expr.items.map((item) => print(item, schema, 3)).join(" AND "), 2);
    case "not":
      return wrap(`NOT ${print(expr.item, schema, 3)}`, 3);
  }
  const column = whereName(schema.fields[expr.column]!.name);
  switch (expr.kind) {
    case "compare":
      return `${column} ${expr.op} ${expr.value.canonical}`;
    case "in":
      return `${column} ${expr.negated ? "NOT IN" : "IN"} (${inValues(expr.type, expr.values).join(", ")})`;
    case "null":
      return `${column} IS ${expr.negated ? "NOT NULL" : "NULL"}`;
    case "like":
      return `${column} ${expr.negated ? "NOT LIKE" : "LIKE"} ${quoteText(expr.pattern)}${expr.escape === null ? "" : ` ESCAPE ${quoteText(expr.escape)}`}`;
  }
}

export function normaliseWhere(expr: TypedExpr, schema: TableSchema): string {
  return print(simplify(expr), schema, 0);
}

/** Null when the columns are all of them in file order (the default). */
export function normaliseColumns(columns: readonly number[], schema: TableSchema): string | null {
  if (columns.length === schema.fields.length && columns.every((column, i) => column === i)) return null;
  return columns.map((column) => listName(schema.fields[column]!.name)).join(",");
}

export function normaliseOrder(order: readonly OrderTerm[], schema: TableSchema): string | null {
  if (order.length === 0) return null;
  return order.map((term) => `${term.descending ? "-" : ""}${listName(schema.fields[term.column]!.name)}`).join(",");
}
