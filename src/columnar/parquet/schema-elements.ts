// The footer's schema: a root group and one OPTIONAL leaf per field, with the logical type and,
// where one exists with the same meaning, the legacy converted type older readers look for.
// https://github.com/apache/parquet-format/blob/master/LogicalTypes.md
import { type ColumnKind, DECIMAL_BYTES, DECIMAL_PRECISION, physicalType } from "./column-kinds.ts";
import { T_STRUCT, type CompactWriter } from "./thrift-compact.ts";

const OPTIONAL = 1;
/** parquet.thrift `ConvertedType`. */
const CONVERTED = { UTF8: 0, DECIMAL: 5, DATE: 6, TIMESTAMP_MICROS: 10 } as const;
/** parquet.thrift `LogicalType` union members. */
const LOGICAL = { STRING: 1, DECIMAL: 5, DATE: 6, TIME: 7, TIMESTAMP: 8 } as const;
const MICROS = 2;

function timeType(w: CompactWriter, member: number, utc: boolean): void {
  w.struct(10).struct(member).bool(1, utc).struct(2).struct(MICROS).end().end().end().end();
}

function leaf(w: CompactWriter, name: string, kind: ColumnKind): void {
  w.element().i32(1, physicalType(kind));
  if (kind === "decimal") w.i32(2, DECIMAL_BYTES);
  w.i32(3, OPTIONAL).string(4, name);
  switch (kind) {
    case "string":
      w.i32(6, CONVERTED.UTF8).struct(10).struct(LOGICAL.STRING).end().end();
      break;
    case "decimal":
      w.i32(6, CONVERTED.DECIMAL).i32(7, 0).i32(8, DECIMAL_PRECISION);
      w.struct(10).struct(LOGICAL.DECIMAL).i32(1, 0).i32(2, DECIMAL_PRECISION).end().end();
      break;
    case "date":
      w.i32(6, CONVERTED.DATE).struct(10).struct(LOGICAL.DATE).end().end();
      break;
    case "time":
      // TIME_MICROS means adjusted to UTC, so a local time of day carries the logical type only.
      timeType(w, LOGICAL.TIME, false);
      break;
    case "timestamp":
    case "timestamp-utc":
      w.i32(6, CONVERTED.TIMESTAMP_MICROS);
      timeType(w, LOGICAL.TIMESTAMP, true);
      break;
    case "timestamp-local":
      timeType(w, LOGICAL.TIMESTAMP, false);
      break;
    default:
      break;
  }
  w.end();
}

/** FileMetaData field 2: the schema tree for columns `names` written as `kinds`. */
export function writeSchema(w: CompactWriter, names: readonly string[], kinds: readonly ColumnKind[]): void {
  w.list(2, T_STRUCT, names.length + 1);
  w.element().string(4, "schema").i32(5, names.length).end();
  names.forEach((name, i) => leaf(w, name, kinds[i]!));
}
