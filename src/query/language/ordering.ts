// The order `order` asks for (docs/queries.md#ordering): columns compared by their type, `-` for
// descending, missing cells last in either direction (DuckDB's NULLS LAST), and ties broken by
// the row's position in the file, so every answer has one order.
import type { FieldType } from "../../schema/table-schema.ts";
import { COLUMN_KINDS, type Key } from "./column-kinds.ts";
import type { Row } from "./evaluate.ts";

export interface OrderTerm {
  column: number;
  type: FieldType;
  descending: boolean;
}

/** A row with the keys it sorts by and its 0-based position among the version's rows. */
export interface Ranked<T> {
  keys: (Key | undefined)[];
  position: number;
  item: T;
}

/** The sort keys of `row` (undefined for a missing cell), computed once per row. */
export function rank<T>(terms: readonly OrderTerm[], row: Row, position: number, item: T): Ranked<T> {
  return { keys: terms.map((term) => COLUMN_KINDS[term.type].key(row[term.column] ?? null)), position, item };
}

/** A strict total order on ranked rows: by the terms, then by position. */
export function rankedComparator(terms: readonly OrderTerm[]): <T>(a: Ranked<T>, b: Ranked<T>) => number {
  const kinds = terms.map((term) => COLUMN_KINDS[term.type]);
  return (a, b) => {
    for (let i = 0; i < kinds.length; i++) {
      const x = a.keys[i];
      const y = b.keys[i];
      if (x === undefined || y === undefined) {
        if (x === y) continue;
        return x === undefined ? 1 : -1;
      }
      const order = kinds[i]!.compare(x, y);
      if (order !== 0) return terms[i]!.descending ? -order : order;
    }
    return a.position - b.position;
  };
}
