// The "header row in append" rule of docs/api.md#errors: an appended part whose first row repeats the
// dataset's header (a common mistake when exporting with headers) is rejected.

const normalize = (cell: string): string => cell.trim().toLowerCase();

/** True when `cells` equals `header` cell-wise, ignoring surrounding whitespace and case. */
export function isHeaderRow(cells: readonly string[], header: readonly string[]): boolean {
  if (cells.length !== header.length) return false;
  for (let i = 0; i < cells.length; i++) {
    if (normalize(cells[i]!) !== normalize(header[i]!)) return false;
  }
  return true;
}
