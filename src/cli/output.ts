// Human output of `pubset`: aligned tables and key/value records. Scripts use --json instead,
// which prints one JSON document and nothing else on stdout.

function cell(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value.replace(/[\r\n\t]+/g, " ");
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(",");
  return JSON.stringify(value);
}

/** Columns padded to their widest cell; the last column is not padded. */
export function formatTable(columns: string[], rows: unknown[][]): string {
  const text = [columns, ...rows.map((row) => columns.map((_, i) => cell(row[i])))];
  const widths = columns.map((_, i) => Math.max(...text.map((row) => (row[i] ?? "").length)));
  return text
    .map((row) => row.map((value, i) => (i === row.length - 1 ? value : value.padEnd(widths[i] ?? 0))).join("  "))
    .join("\n")
    .concat("\n");
}

/** A table of objects, one column per key in `columns` (upper-cased as headings). */
export function formatObjects(columns: string[], items: Record<string, unknown>[]): string {
  if (items.length === 0) return "(none)\n";
  return formatTable(
    columns.map((c) => c.toUpperCase()),
    items.map((item) => columns.map((c) => item[c])),
  );
}

/** One `key  value` line per field; objects print as JSON. */
export function formatRecord(record: object): string {
  const entries = Object.entries(record);
  const width = Math.max(...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`).join("\n") + "\n";
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
