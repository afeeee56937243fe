// Which typed column writes which kind: the one place a kind becomes code.
import type { Field } from "../../schema/table-schema.ts";
import type { TypedColumn } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";
import { Int64Column } from "./int64-column.ts";
import { DecimalColumn, NumberColumn } from "./numeric-columns.ts";
import { BooleanColumn, StringColumn } from "./text-columns.ts";
import type { ValueSink } from "./value-sink.ts";

/** A fresh column chunk writing `field`'s cells as `kind`, telling `sink` (if any) the values it writes. */
export function createColumn(kind: ColumnKind, field: Field, sink: ValueSink | null = null): TypedColumn {
  switch (kind) {
    case "int64":
    case "time":
    case "timestamp":
    case "timestamp-utc":
    case "timestamp-local":
      return new Int64Column(kind, field, sink);
    case "date":
    case "double":
      return new NumberColumn(kind, field, sink);
    case "boolean":
      return new BooleanColumn(field, sink);
    case "decimal":
      return new DecimalColumn(field, sink);
    case "string":
      return new StringColumn(field, sink);
  }
}
