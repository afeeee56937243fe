// Typed cells written back as CSV (RFC 4180) for the query export: the same text whether the rows
// came from the Parquet twin or the CSV segments. A missing cell is an empty field; text that is
// empty, or holds a comma, a double quote or a line break, is quoted.
import type { Cell } from "../schema/cast.ts";

export function csvField(cell: Cell): string {
  if (cell === null) return "";
  if (typeof cell !== "string") return String(cell);
  return cell === "" || /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function csvLine(cells: readonly Cell[]): string {
  return `${cells.map(csvField).join(",")}\r\n`;
}
