// CSV records typed by the version's schema for the scan (src/schema/cast.ts), only in the columns
// a query needs: the rest of each row stays null and is never cast, and, with a `where`, the
// other needed columns only of the records that match.
import { castCell, type Cell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import { whereColumns, type CompiledQuery } from "./language/query.ts";
import type { ScanBatch } from "./scan.ts";

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

/** `records` (the rows from `first` on) cast in `columns`, rows that cannot match left out when a `where` can tell. */
export function castMatching(schema: TableSchema, missing: ReadonlySet<string>, query: CompiledQuery, records: readonly string[][], columns: readonly number[], first: number): ScanBatch {
  const filterColumns = whereColumns(query.where);
  const filter = columns.filter((c) => filterColumns.has(c));
  if (query.where === null || filter.length === 0) return { rows: castRows(schema, missing, records, columns) };
  const probes = castRows(schema, missing, records, filter);
  const hits: number[] = [];
  probes.forEach((probe, i) => {
    if (query.matches(probe)) hits.push(i);
  });
  const rest = columns.filter((c) => !filterColumns.has(c));
  const full = rest.length === 0 ? hits.map((i) => probes[i]!) : castRows(schema, missing, hits.map((i) => records[i]!), rest);
  if (rest.length > 0) full.forEach((row, k) => filter.forEach((c) => (row[c] = probes[hits[k]!]![c] ?? null)));
  return { rows: full, positions: hits.map((i) => first + i) };
}
