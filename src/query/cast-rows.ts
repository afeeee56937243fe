// CSV records typed by the version's schema for the scan (src/schema/cast.ts), only in the columns
// a query needs: the rest of each row stays null and is never cast.
import { castCell, type Cell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";

/** Cells of `columns` of each CSV record, typed by the schema; other cells stay null. */
export function castRows(schema: TableSchema, missing: ReadonlySet<string>, records: readonly string[][], columns: readonly number[]): Cell[][] {
  const width = schema.fields.length;
  return records.map((record) => {
    const row: Cell[] = new Array<Cell>(width).fill(null);
    for (const c of columns) {
      const field = schema.fields[c];
      const text = record[c] ?? "";
      if (!field) continue;
      const cast = castCell(field, text, missing);
      row[c] = cast.ok ? cast.value : text;
    }
    return row;
  });
}
