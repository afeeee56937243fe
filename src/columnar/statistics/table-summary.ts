// The mergeable summary of a whole table, one column summary per field: what the Parquet build
// feeds rows into, what R2 stores beside a version (encodeSummary), and what an append merges
// with its parent's (mergeSummaries) so statistics cost what the append costs.
import type { Cell } from "../../schema/cast.ts";
import type { FieldType, TableSchema } from "../../schema/table-schema.ts";
import { BooleanColumn } from "./boolean-column.ts";
import { ByteReader, ByteWriter } from "./bytes.ts";
import { NumericColumn, type NumericType } from "./numeric-column.ts";
import { StringColumn, type TextKeys } from "./string-column.ts";

export type ColumnSummary = NumericColumn | StringColumn | BooleanColumn;

export interface TableSummary {
  rows: number;
  columns: ColumnSummary[];
}

/**
 * The byte form's first bytes: `PSST` and the format version. Format 2 keys a string column's
 * texts by their UTF-8 bytes; format 1, still read, by their UTF-16 code units.
 */
const MAGIC = [0x50, 0x53, 0x53, 0x54];
const FORMAT_VERSION = 2;
const UTF16_KEYS_VERSION = 1;

/** How the string columns of a summary stored in format `version` key their texts. */
export function textKeysOf(version: number): TextKeys {
  return version === UTF16_KEYS_VERSION ? "utf16" : "utf8";
}

/** The format version a stored summary's first five bytes name, or null when they are not a summary's. */
export function summaryFormat(head: Uint8Array): number | null {
  return head.length >= 5 && MAGIC.every((byte, i) => head[i] === byte) ? head[4]! : null;
}
const TYPE_TAGS: readonly FieldType[] = ["integer", "number", "boolean", "date", "datetime", "time", "string"];

export function columnSummary(type: FieldType, keys: TextKeys = "utf8"): ColumnSummary {
  if (type === "string") return new StringColumn(keys);
  if (type === "boolean") return new BooleanColumn();
  return new NumericColumn(type);
}

/** The field type a column summary was made for. */
export function summaryType(column: ColumnSummary): FieldType {
  return column instanceof StringColumn ? "string" : column instanceof BooleanColumn ? "boolean" : column.type;
}

/**
 * An empty summary for `schema`: no rows yet. `keys`: how its string columns key texts (UTF-8, or
 * UTF-16 to merge exactly with summaries stored in format 1).
 */
export function createSummaries(schema: TableSchema, keys: TextKeys = "utf8"): TableSummary {
  return { rows: 0, columns: schema.fields.map((field) => columnSummary(field.type, keys)) };
}

/**
 * Marks the columns whose distinct count the rows before this summary's (earlier parts of the same
 * version) already put past EXACT_DISTINCT_LIMIT: whatever these rows hold, the version's count
 * is an estimate, so those columns keep no distinct keys (docs/statistics.md, "Distinct keys past
 * the table"). A version holds every row its earlier parts hold, so such a summary is only ever
 * merged after theirs.
 */
export function skipDistinctKeys(summary: TableSummary, past: readonly boolean[]): void {
  summary.columns.forEach((column, i) => {
    if (!past[i]) return;
    if (column instanceof NumericColumn) column.values.keepKeys = false;
    else if (column instanceof StringColumn) column.keepDistinctKeys = false;
  });
}

/** Which columns' distinct count is an estimate (past EXACT_DISTINCT_LIMIT, or its keys not kept). */
export function distinctPast(summary: TableSummary): boolean[] {
  return summary.columns.map((column) => {
    if (column instanceof NumericColumn) return column.values.distinctApproximate;
    return column instanceof StringColumn && column.distinctCount().approximate;
  });
}

/** Counts one row of cells as castCell types them; a cell the row lacks is missing. */
export function observeRow(summary: TableSummary, cells: readonly Cell[]): void {
  summary.rows++;
  const columns = summary.columns;
  for (let i = 0; i < columns.length; i++) columns[i]!.observe(cells[i] ?? null);
}

/**
 * Counts a batch column by column: `columns[i]` holds column i's cells of the same rows. Faster
 * than observeRow (each loop sees one summary class), same result.
 */
export function observeColumns(summary: TableSummary, columns: readonly (readonly Cell[])[]): void {
  const rows = columns[0]?.length ?? 0;
  summary.rows += rows;
  summary.columns.forEach((column, i) => {
    const cells = columns[i];
    for (let row = 0; row < rows; row++) column.observe(cells?.[row] ?? null);
  });
}

function mergeColumn(column: ColumnSummary, other: ColumnSummary, index: number): void {
  if (summaryType(column) !== summaryType(other)) throw new RangeError(`statistics summaries of different types in column ${index + 1}`);
  if (column instanceof NumericColumn) column.merge(other as NumericColumn);
  else if (column instanceof StringColumn) column.merge(other as StringColumn);
  else column.merge(other as BooleanColumn);
}

/** Merges `b` into `a` and returns `a` (`b` is left as it was). Both must describe the same fields. */
export function mergeSummaries(a: TableSummary, b: TableSummary): TableSummary {
  if (a.columns.length !== b.columns.length) throw new RangeError("statistics summaries of different column counts");
  a.columns.forEach((column, i) => mergeColumn(column, b.columns[i]!, i));
  a.rows += b.rows;
  return a;
}

/** The compact, versioned byte form stored in R2 (layout in docs/statistics.md). */
export function encodeSummary(summary: TableSummary): Uint8Array {
  const out = new ByteWriter();
  for (const byte of MAGIC) out.u8(byte);
  // A summary whose string columns keep format 1's keys (made to merge with such summaries) is stored as format 1.
  const utf16 = summary.columns.some((column) => column instanceof StringColumn && column.keys === "utf16");
  if (utf16 && summary.columns.some((column) => column instanceof StringColumn && column.keys === "utf8")) throw new RangeError("statistics summary: string columns keyed both ways");
  out.u8(utf16 ? UTF16_KEYS_VERSION : FORMAT_VERSION);
  out.varuint(summary.rows);
  out.varuint(summary.columns.length);
  for (const column of summary.columns) {
    out.u8(TYPE_TAGS.indexOf(summaryType(column)));
    column.encode(out);
  }
  return out.finish();
}

/**
 * Reads encodeSummary's bytes; throws RangeError on bytes it did not write. With `maxColumns`,
 * only the first columns are decoded and the rest of the bytes are left unread.
 */
export function decodeSummary(bytes: Uint8Array, maxColumns = Infinity): TableSummary {
  const input = new ByteReader(bytes);
  for (const byte of MAGIC) if (input.u8() !== byte) throw new RangeError("not a statistics summary");
  const version = input.u8();
  if (version !== FORMAT_VERSION && version !== UTF16_KEYS_VERSION) throw new RangeError(`statistics summary format ${version} is not supported`);
  const keys = textKeysOf(version);
  const rows = input.varuint();
  const stored = input.varuint();
  const count = Math.min(stored, maxColumns);
  const columns: ColumnSummary[] = [];
  for (let i = 0; i < count; i++) {
    const type = TYPE_TAGS[input.u8()];
    if (type === undefined) throw new RangeError("statistics summary holds an unknown column type");
    if (type === "string") columns.push(StringColumn.decode(input, keys));
    else if (type === "boolean") columns.push(BooleanColumn.decode(input));
    else columns.push(NumericColumn.decode(input, type as NumericType));
  }
  if (count === stored && !input.done) throw new RangeError("statistics summary has bytes after its end");
  return { rows, columns };
}
