// The loop that reads one column's cells of a CellBatch for the typed columns that have a byte
// reader (int64-column.ts, numeric-columns.ts, text-columns.ts's booleans), as TypedColumn.addCells
// describes: one copy of the missing-cell, byte and text paths for all of them. Integer, number,
// date, time and datetime cells come here only where typed-cells.ts's kernel does not read them.
import type { CellBatch } from "../../csv/cell-batch.ts";
import type { ColumnChunk } from "./column-chunk.ts";
import type { ColumnKind } from "./column-kinds.ts";

/** A typed column that reads a cell from its UTF-8 bytes, or from its text where it must. */
export interface ByteReadColumn {
  readonly chunk: ColumnChunk;
  need: ColumnKind | undefined;
  add(text: string): ColumnKind | undefined;
  addBytes(bytes: Uint8Array, start: number, end: number): ColumnKind | undefined;
}

/**
 * Cells `c` of records [from, to) of `batch` into `column`; as TypedColumn.addCells says. `direct`:
 * the field's spellings are the byte reader's (no castCell), so a cell without a doubled quote
 * (its start ≥ 0) is read from its bytes.
 */
export function addCellsByBytes(column: ByteReadColumn, direct: boolean, batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number {
  const chunk = column.chunk;
  const { bytes, cells, ends } = batch;
  let units = 0;
  for (let r = from; r < to; r++) {
    const k = (r === 0 ? batch.first : ends[r - 1]!) + c;
    let need: ColumnKind | undefined;
    if (k >= ends[r]!) {
      // A short record's missing cell reads as "".
      if (missing === null || missing.has("")) {
        chunk.addNull();
        continue;
      }
      need = column.add("");
    } else {
      const start = cells[4 * k]!;
      const end = cells[4 * k + 1]!;
      if (missing === null ? start === end : missing.has(batch.cellText(k))) {
        chunk.addNull();
        continue;
      }
      if (direct && start >= 0) {
        units += cells[4 * k + 3]! - cells[4 * k + 2]!;
        need = column.addBytes(bytes, start, end);
      } else {
        const text = batch.cellText(k);
        units += text.length;
        need = column.add(text);
      }
    }
    if (need !== undefined) {
      column.need = need;
      return -1;
    }
  }
  return units;
}
