// Column kinds: the Parquet type a column is written as, chosen from its Table Schema type and,
// for integers and datetimes, from its values. Parts of one file are encoded apart, so a kind is
// an input of the part writer, and kinds only ever widen:
//
//   int64 ⊂ decimal ⊂ string        (a value outside int64; more than 38 digits)
//   timestamp ⊂ timestamp-utc ⊂ string, timestamp ⊂ timestamp-local ⊂ string (utc ⊔ local = string)
//   every other kind ⊂ string       (a cell its type cannot hold exactly, e.g. a time with an offset)
//
// `timestamp` is a datetime column not yet resolved: the part writer resolves it by the first
// value it meets (offset or Z → utc, none → local). A part whose values need a wider kind stops
// and reports it; the caller widens with unifyKinds and encodes that part again. The tail writer
// takes parts whose kinds agree on every column chunk that holds a value (an all-null chunk has
// no values, so it fits any kind) and refuses the others. See docs/columnar.md.
import type { FieldType, TableSchema } from "../../schema/table-schema.ts";

export const COLUMN_KINDS = ["int64", "decimal", "double", "boolean", "date", "time", "timestamp", "timestamp-utc", "timestamp-local", "string"] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];

/** Parquet physical types (parquet.thrift `Type`). */
export const PHYSICAL = { BOOLEAN: 0, INT32: 1, INT64: 2, DOUBLE: 5, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 } as const;

/** Bytes of a DECIMAL(38, 0) value: 38 digits need 127 bits and a sign. */
export const DECIMAL_BYTES = 16;
export const DECIMAL_PRECISION = 38;

const START: Record<FieldType, ColumnKind> = {
  integer: "int64",
  number: "double",
  boolean: "boolean",
  date: "date",
  datetime: "timestamp",
  time: "time",
  string: "string",
};

/** The kinds to encode a first part with: the narrowest each field type allows. */
export function startKinds(schema: TableSchema): ColumnKind[] {
  return schema.fields.map((field) => START[field.type]);
}

/** The physical type a kind is stored as. */
export function physicalType(kind: ColumnKind): number {
  switch (kind) {
    case "boolean":
      return PHYSICAL.BOOLEAN;
    case "date":
      return PHYSICAL.INT32;
    case "double":
      return PHYSICAL.DOUBLE;
    case "decimal":
      return PHYSICAL.FIXED_LEN_BYTE_ARRAY;
    case "string":
      return PHYSICAL.BYTE_ARRAY;
    default:
      return PHYSICAL.INT64;
  }
}

/** The least kind that holds the values of both `a` and `b`. */
export function unifyKind(a: ColumnKind, b: ColumnKind): ColumnKind {
  if (a === b) return a;
  if (a === "timestamp" && b.startsWith("timestamp")) return b;
  if (b === "timestamp" && a.startsWith("timestamp")) return a;
  if ((a === "int64" && b === "decimal") || (a === "decimal" && b === "int64")) return "decimal";
  return "string";
}

/** Column-wise unifyKind of several lists of kinds (one per part, or a part's kinds and its needs). */
export function unifyKinds(...lists: readonly (readonly ColumnKind[])[]): ColumnKind[] {
  const [first, ...rest] = lists;
  if (!first) return [];
  return first.map((kind, i) => rest.reduce<ColumnKind>((acc, list) => unifyKind(acc, list[i] ?? acc), kind));
}

/** Whether a chunk written as `used` can stand in a file whose column is `kind`. */
export function kindFits(used: ColumnKind, kind: ColumnKind, hasValues: boolean): boolean {
  return !hasValues || used === kind;
}
