// Checks a parsed `where` against the version's Table Schema (docs/queries.md#typing): every
// column exists, every literal can be its column's type, LIKE only on string columns. The typed
// tree it returns names columns by index and carries literals as comparable keys.
import type { FieldType, TableSchema } from "../../schema/table-schema.ts";
import { COLUMN_KINDS, quoteText, type Key } from "./column-kinds.ts";
import { resolveColumn } from "./column-names.ts";
import { failure, queryError, quoteFound, shortText, type QueryError, type Result } from "./query-error.ts";
import type { CompareOp, Expr, Literal } from "./syntax.ts";
import { likePieces, type LikePiece } from "./text-order.ts";

/** A literal read as its column's type: its key and its one canonical spelling. */
export interface TypedValue {
  key: Key;
  canonical: string;
}

export type TypedExpr =
  | { kind: "and" | "or"; items: TypedExpr[] }
  | { kind: "not"; item: TypedExpr }
  | { kind: "compare"; column: number; type: FieldType; op: CompareOp; value: TypedValue }
  | { kind: "in"; column: number; type: FieldType; values: TypedValue[]; negated: boolean }
  | { kind: "null"; column: number; type: FieldType; negated: boolean }
  | { kind: "like"; column: number; type: "string"; pattern: string; escape: string | null; pieces: LikePiece[]; negated: boolean };

class TypingFailure {
  readonly error: QueryError;
  constructor(error: QueryError) {
    this.error = error;
  }
}

function writtenAs(literal: Literal): string {
  if (literal.kind === "number") return literal.text;
  if (literal.kind === "boolean") return literal.value ? "true" : "false";
  return shortText(quoteText(literal.value));
}

function typeNode(expr: Expr, schema: TableSchema, input: string): TypedExpr {
  const fail = (start: number, expected: string, found: string, hint?: string): never => {
    throw new TypingFailure(queryError("where", input, start, expected, found, hint));
  };
  switch (expr.kind) {
    case "and":
    case "or":
      return { kind: expr.kind, items: expr.items.map((item) => typeNode(item, schema, input)) };
    case "not":
      return { kind: "not", item: typeNode(expr.item, schema, input) };
  }
  const resolved = resolveColumn(schema, "where", input, expr.column.start, expr.column.name);
  if (!resolved.ok) throw new TypingFailure(resolved.error);
  const column = resolved.value;
  const field = schema.fields[column]!;
  const kind = COLUMN_KINDS[field.type];
  const value = (literal: Literal): TypedValue => {
    const reading = kind.literal(literal);
    if (!reading.ok) return fail(literal.start, reading.expected, writtenAs(literal), `${quoteFound(field.name)} is a column of type ${field.type}`);
    return { key: reading.key, canonical: reading.canonical };
  };
  switch (expr.kind) {
    case "compare":
      return { kind: "compare", column, type: field.type, op: expr.op, value: value(expr.literal) };
    case "in":
      return { kind: "in", column, type: field.type, values: expr.literals.map(value), negated: expr.negated };
    case "null":
      return { kind: "null", column, type: field.type, negated: expr.negated };
    case "like": {
      if (field.type !== "string") return fail(expr.column.start, "a column of type string before LIKE", `${quoteFound(field.name)}, a column of type ${field.type}`);
      const escape = expr.escape;
      if (escape !== null && [...escape.value].length !== 1) return fail(escape.start, "one character after ESCAPE", writtenAs(escape));
      const pieces = likePieces(expr.pattern.value, escape?.value ?? null);
      if (pieces === null) return fail(expr.pattern.start, "a character after the pattern's last escape character", writtenAs(expr.pattern));
      return { kind: "like", column, type: "string", pattern: expr.pattern.value, escape: escape?.value ?? null, pieces, negated: expr.negated };
    }
  }
}

/** Types `expr` (parsed from `input`) against `schema`. */
export function typeWhere(expr: Expr, schema: TableSchema, input: string): Result<TypedExpr> {
  try {
    return { ok: true, value: typeNode(expr, schema, input) };
  } catch (error: unknown) {
    if (error instanceof TypingFailure) return failure(error.error);
    throw error;
  }
}
