// `pubset rows` on a terminal: a table as wide as the screen. Long cells are cut with "…", the
// columns that fit are shown left to right and the rest are named, so a 24-column file never
// wraps into a staircase. `--columns` picks the columns; `--csv` and `--json` print them all.
import { UsageError } from "./cli-error.ts";
import { formatTable } from "./output.ts";

/** No cell is shown wider than this on a terminal; the whole value is in --csv and --json. */
const MAX_CELL = 32;
const GAP = 2;

function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return "";
  return (typeof value === "string" ? value : JSON.stringify(value)).replace(/[\r\n\t]+/g, " ");
}

export interface FittedTable {
  text: string;
  /** The columns left out for want of width. */
  hidden: string[];
}

/** The table cut to `width` characters per line: whole columns, at least one. */
export function fitTable(columns: string[], rows: unknown[][], width: number): FittedTable {
  const cells = rows.map((row) => columns.map((_, i) => cut(shown(row[i]), MAX_CELL)));
  const heads = columns.map((name) => cut(name, MAX_CELL));
  const widths = columns.map((_, i) => Math.max(heads[i]!.length, ...cells.map((row) => row[i]!.length)));
  let used = 0;
  let count = 0;
  for (const w of widths) {
    const next = used + (count > 0 ? GAP : 0) + w;
    if (count > 0 && next > width) break;
    used = next;
    count++;
  }
  const text = formatTable(
    heads.slice(0, count),
    cells.map((row) => row.slice(0, count)),
  );
  // A lone first column wider than the screen is cut to it too.
  const lines = text.split("\n").map((line) => cut(line, Math.max(1, width)));
  return { text: lines.join("\n"), hidden: columns.slice(count) };
}

/** `--columns a,b` (names or 1-based numbers) as indices into `columns`, in the order given. */
export function chosenColumns(option: string, columns: string[]): number[] {
  return option.split(",").map((raw) => {
    const name = raw.trim();
    const byName = columns.indexOf(name);
    if (byName !== -1) return byName;
    const number = /^\d+$/.test(name) ? Number(name) : Number.NaN;
    if (number >= 1 && number <= columns.length) return number - 1;
    throw new UsageError(`--columns: no column ${JSON.stringify(name)}; the columns are ${columns.join(", ")}`);
  });
}

/** RFC 4180 CSV: a field is quoted when it holds a comma, quote, CR or LF. */
export function csvText(columns: string[], rows: unknown[][]): string {
  const field = (value: unknown) => {
    const text = value === undefined || value === null ? "" : typeof value === "string" ? value : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns, ...rows].map((row) => columns.map((_, i) => field(row[i])).join(",")).join("\r\n") + "\r\n";
}
