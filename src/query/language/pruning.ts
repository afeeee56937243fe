// Decides from a block's statistics whether any of its rows can match (docs/queries.md#pruning),
// so a scan skips Parquet row groups that cannot. Each node is given the set of truth values it
// can take on some row of the block (true, false, unknown); a block is skipped only when true
// is surely impossible. Over-approximating those sets is always safe; this never under-approximates.
import type { Cell } from "../../schema/cast.ts";
import { COLUMN_KINDS, type ColumnKind, type Key } from "./column-kinds.ts";
import { OPERATOR_TESTS } from "./evaluate.ts";
import type { CompareOp } from "./syntax.ts";
import { compareCodePoints, likeExact, likeMatches, likePrefix } from "./text-order.ts";
import type { TypedExpr } from "./typing.ts";

/**
 * One column of a block. `min` and `max` bound its non-missing values in the order the language
 * compares them (numbers: NaN above everything, so a block holding NaN has max NaN); leave them
 * out when unknown.
 */
export interface ColumnStatistics {
  rowCount: number;
  nullCount: number;
  min?: Cell;
  max?: Cell;
}

interface Possible {
  t: boolean;
  f: boolean;
  u: boolean;
}

const ANYTHING: Possible = { t: true, f: true, u: true };
const COMPLEMENT: Record<CompareOp, CompareOp> = { "=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<" };

/** Whether some value v with min ≤ v ≤ max can satisfy `v op literal`. */
function rangeAllows(kind: ColumnKind, min: Key, max: Key, op: CompareOp, literal: Key): boolean {
  const low = kind.compare(min, literal);
  const high = kind.compare(max, literal);
  switch (op) {
    case "=":
      return low <= 0 && high >= 0;
    case "!=":
      return !(low === 0 && high === 0);
    default:
      return OPERATOR_TESTS[op](op === "<" || op === "<=" ? low : high);
  }
}

function negate(possible: Possible, negated: boolean): Possible {
  return negated ? { t: possible.f, f: possible.t, u: possible.u } : possible;
}

function leaf(expr: Exclude<TypedExpr, { kind: "and" | "or" | "not" }>, stats: ColumnStatistics | undefined): Possible {
  if (stats === undefined) return ANYTHING;
  const present = stats.rowCount - stats.nullCount > 0;
  const missing = stats.nullCount > 0;
  if (expr.kind === "null") return negate({ t: missing, f: present, u: false }, expr.negated);
  if (!present) return { t: false, f: false, u: missing };
  const kind = COLUMN_KINDS[expr.type];
  const min = stats.min === undefined ? undefined : kind.key(stats.min);
  const max = stats.max === undefined ? undefined : kind.key(stats.max);
  if (min === undefined || max === undefined) return ANYTHING;
  const single = kind.compare(min, max) === 0;
  switch (expr.kind) {
    case "compare":
      return { t: rangeAllows(kind, min, max, expr.op, expr.value.key), f: rangeAllows(kind, min, max, COMPLEMENT[expr.op], expr.value.key), u: missing };
    case "in": {
      const t = expr.values.some((value) => rangeAllows(kind, min, max, "=", value.key));
      const f = !(single && expr.values.some((value) => kind.compare(min, value.key) === 0));
      return negate({ t, f, u: missing }, expr.negated);
    }
    case "like": {
      const [low, high] = [min as string, max as string];
      const exact = likeExact(expr.pieces);
      const prefix = exact ?? likePrefix(expr.pieces);
      const t = exact !== null ? compareCodePoints(low, exact) <= 0 && compareCodePoints(high, exact) >= 0 : compareCodePoints(high, prefix) >= 0 && (compareCodePoints(low, prefix) <= 0 || low.startsWith(prefix));
      const f = !(single && likeMatches(expr.pieces, low));
      return negate({ t, f, u: missing }, expr.negated);
    }
  }
}

function possible(expr: TypedExpr, statistics: readonly (ColumnStatistics | undefined)[]): Possible {
  switch (expr.kind) {
    case "not":
      return negate(possible(expr.item, statistics), true);
    case "and": {
      const items = expr.items.map((item) => possible(item, statistics));
      return { t: items.every((p) => p.t), f: items.some((p) => p.f), u: items.some((p) => p.u) && items.every((p) => p.t || p.u) };
    }
    case "or": {
      const items = expr.items.map((item) => possible(item, statistics));
      return { t: items.some((p) => p.t), f: items.every((p) => p.f), u: items.some((p) => p.u) && items.every((p) => p.f || p.u) };
    }
    default:
      return leaf(expr, statistics[expr.column]);
  }
}

/**
 * Whether a block whose columns have these statistics (indexed like the schema's fields; a
 * column left out is unknown) may hold a matching row. False only when none can match.
 */
export function blockMayMatch(expr: TypedExpr | null, statistics: readonly (ColumnStatistics | undefined)[], rowCount: number): boolean {
  if (rowCount === 0) return false;
  return expr === null || possible(expr, statistics).t;
}
