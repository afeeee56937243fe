// Compiles a typed `where` into a predicate over a row of typed cells (docs/queries.md#three-valued-logic),
// with SQL's three values: a comparison with a missing cell is unknown (null), NOT keeps
// unknown, AND and OR combine as in DuckDB and PostgreSQL, and a row matches only when true.
import type { Cell } from "../../schema/cast.ts";
import { COLUMN_KINDS } from "./column-kinds.ts";
import type { CompareOp } from "./syntax.ts";
import { likeExact, likeMatches, likePrefix } from "./text-order.ts";
import type { TypedExpr } from "./typing.ts";

/** true, false, or null for unknown. */
export type Truth = boolean | null;
export type Row = readonly Cell[];

/** Whether `compare(cell, literal)` (negative, zero, positive) satisfies the operator. */
export const OPERATOR_TESTS: Record<CompareOp, (order: number) => boolean> = {
  "=": (order) => order === 0,
  "!=": (order) => order !== 0,
  "<": (order) => order < 0,
  "<=": (order) => order <= 0,
  ">": (order) => order > 0,
  ">=": (order) => order >= 0,
};

function likeTest(pieces: Parameters<typeof likeMatches>[0]): (text: string) => boolean {
  const exact = likeExact(pieces);
  if (exact !== null) return (text) => text === exact;
  const prefix = likePrefix(pieces);
  if (pieces.length === 2 && prefix !== "" && typeof pieces[1] === "object" && pieces[1].any === "run") return (text) => text.startsWith(prefix);
  return (text) => likeMatches(pieces, text);
}

/** The three-valued truth of `expr` for a row whose cells are in schema order. */
export function compileTruth(expr: TypedExpr): (row: Row) => Truth {
  switch (expr.kind) {
    case "and": {
      const items = expr.items.map(compileTruth);
      return (row) => {
        let result: Truth = true;
        for (const item of items) {
          const value = item(row);
          if (value === false) return false;
          if (value === null) result = null;
        }
        return result;
      };
    }
    case "or": {
      const items = expr.items.map(compileTruth);
      return (row) => {
        let result: Truth = false;
        for (const item of items) {
          const value = item(row);
          if (value === true) return true;
          if (value === null) result = null;
        }
        return result;
      };
    }
    case "not": {
      const item = compileTruth(expr.item);
      return (row) => {
        const value = item(row);
        return value === null ? null : !value;
      };
    }
    case "null": {
      const { column, negated } = expr;
      return (row) => ((row[column] ?? null) === null) !== negated;
    }
    case "like": {
      const { column, negated } = expr;
      const test = likeTest(expr.pieces);
      return (row) => {
        const cell = row[column];
        return typeof cell === "string" ? test(cell) !== negated : null;
      };
    }
    case "compare": {
      const kind = COLUMN_KINDS[expr.type];
      const { column } = expr;
      const literal = expr.value.key;
      const test = OPERATOR_TESTS[expr.op];
      return (row) => {
        const key = kind.key(row[column] ?? null);
        return key === undefined ? null : test(kind.compare(key, literal));
      };
    }
    case "in": {
      const kind = COLUMN_KINDS[expr.type];
      const { column, negated } = expr;
      const literals = expr.values.map((value) => value.key);
      return (row) => {
        const key = kind.key(row[column] ?? null);
        if (key === undefined) return null;
        for (const literal of literals) if (kind.compare(key, literal) === 0) return !negated;
        return negated;
      };
    }
  }
}

/** Whether a row matches: its truth is true (false and unknown leave it out). */
export function compilePredicate(expr: TypedExpr | null): (row: Row) => boolean {
  if (expr === null) return () => true;
  const truth = compileTruth(expr);
  return (row) => truth(row) === true;
}
