// Which typed column writes which kind: the one place a kind becomes code.
import type { Field } from "../../schema/table-schema.ts";
import type { TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { DecimalColumn, Int64Column, NumberColumn } from "./numeric-columns.ts";
import { BooleanColumn, StringColumn } from "./text-columns.ts";

/** A fresh column chunk writing `field`'s cells as `kind`. */
export function createColumn(kind: ColumnKind, field: Field): TypedColumn {
  switch (kind) {
    case "int64":
    case "time":
    case "timestamp":
    case "timestamp-utc":
    case "timestamp-local":
      return new Int64Column(kind, field);
    case "date":
    case "double":
      return new NumberColumn(kind, field);
    case "boolean":
      return new BooleanColumn(field);
    case "decimal":
      return new DecimalColumn(field);
    case "string":
      return new StringColumn(field);
  }
}
