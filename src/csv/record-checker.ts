// The record-level rules of docs/api.md#writes — column counts, size limits, the header and the "header
// row in append" check — applied at field and record boundaries, never per byte.

import { CellBuffer } from "./cell-buffer.ts";
import { CsvError, invalidCsv, limitExceeded, wrongSeparator, type CsvLimitName } from "./csv-error.ts";
import { isHeaderRow } from "./header-match.ts";
import { likelySeparator, type Separator } from "./separator-hint.ts";
import type { CsvLimits, CsvMode } from "./types.ts";

/**
 * Positions are absolute byte offsets in the scanned input. The first record's cells are
 * collected while `collecting`; that buffer is bounded by maxHeaderBytes and maxColumns.
 */
export class RecordChecker {
  /** Completed records, header included. */
  records = 0;
  /** True while the current record is the first one and its cells are being kept. */
  collecting = false;
  header: string[] | null = null;
  firstRow: string[] | null = null;
  columns: number;

  private fields = 0;
  /** Whether a field of the first record was quoted (a quoted field is never split by a hint). */
  private quotedFirst = false;
  private fieldStart = 0;
  private recordStart = 0;
  private cells: string[] = [];
  private readonly cell = new CellBuffer();
  private readonly mode: CsvMode;
  private readonly limits: CsvLimits;

  constructor(mode: CsvMode, limits: CsvLimits) {
    this.mode = mode;
    this.limits = limits;
    this.columns = mode.kind === "rows" ? mode.expectedColumns : 0;
  }

  /** Goes on after a record end another checker reached (its checkpoint's fields). */
  resume(at: { records: number; header: string[] | null; firstRow: string[] | null; columns: number }): void {
    this.records = at.records;
    this.header = at.header;
    this.firstRow = at.firstRow;
    this.columns = at.columns;
  }

  get dataRows(): number {
    return this.mode.kind === "table" ? Math.max(0, this.records - 1) : this.records;
  }

  startRecord(pos: number): void {
    this.fields = 0;
    this.fieldStart = pos;
    this.recordStart = pos;
    this.collecting = this.records === 0;
    this.quotedFirst = false;
  }

  /** The field being collected opened with a quote. */
  quoted(): void {
    this.quotedFirst = true;
  }

  /** Adds `buf[from..to)`, field content ending at absolute `end`, to the current cell. */
  collect(buf: Uint8Array, from: number, to: number, end: number): void {
    if (this.withinHeaderBytes(end)) this.cell.append(buf, from, to);
  }

  /** Adds the `"` that a doubled quote ending at absolute `end` stands for. */
  collectQuote(end: number): void {
    if (this.withinHeaderBytes(end)) this.cell.appendByte(0x22);
  }

  /** The field that started at the last boundary ends at `pos` (a separator or the end). */
  endField(pos: number): void {
    this.checkOpenField(pos);
    this.fields++;
    this.fieldStart = pos + 1;
    if (!this.collecting || !this.withinHeaderBytes(pos)) return;
    if (this.fields > this.limits.maxColumns) this.overBudget("maxColumns", this.limits.maxColumns);
    else this.cells.push(this.cell.take());
  }

  /** Fails once the field still open at `pos` is already longer than maxFieldBytes. */
  checkOpenField(pos: number): void {
    if (pos - this.fieldStart > this.limits.maxFieldBytes) {
      throw limitExceeded("maxFieldBytes", this.limits.maxFieldBytes, this.records + 1);
    }
  }

  endRecord(): void {
    const row = this.records + 1;
    if (this.records === 0) this.firstRecord(row);
    else if (this.fields !== this.columns) throw this.mismatch(row, this.fields);
    this.records = row;
    this.collecting = false;
    this.cells = [];
  }

  /**
   * `n` blank lines were followed by a record. In a one-column table each is a record of one
   * empty field; anywhere else, and before a header, a blank line is refused (docs/api.md#writes).
   */
  blankLines(n: number, pos: number): void {
    if (n === 0) return;
    const row = this.records + 1;
    if (this.mode.kind === "table" && this.records === 0) {
      throw invalidCsv("row 1 is a blank line: the header must be the first line of the file; remove the blank lines before it", 1);
    }
    if (this.columns !== 1) {
      const message =
        `row ${row} is a blank line: a blank line inside the file is a row only when the table has one column, ` +
        `and this one has ${this.columns}; remove it (blank lines at the very end are dropped)`;
      const details = { row, expected: this.columns, found: 1 };
      if (this.mode.kind === "table") throw invalidCsv(message, row, details);
      throw new CsvError("column_count_mismatch", message, details);
    }
    if (this.records === 0) {
      this.startRecord(pos);
      this.endField(pos);
      this.endRecord();
      n--;
    }
    this.records += n;
  }

  /** How an error names the first record: the header, or the first appended row. */
  get firstRecordName(): string {
    return this.mode.kind === "table" ? "the header" : "row 1";
  }

  /** End of input: there must have been a header (table) or a data row (rows). */
  finish(): void {
    if (this.records > 0) return;
    if (this.mode.kind === "table") throw new CsvError("empty_csv", "the CSV has no header row");
    throw new CsvError("empty_append", "the appended CSV has no data rows");
  }

  private firstRecord(row: number): void {
    const separator = this.fields === 1 && !this.quotedFirst && this.collecting ? likelySeparator(this.cells[0] ?? "") : null;
    if (this.mode.kind === "table") {
      if (separator !== null) throw wrongSeparator(separator, row, "the header");
      this.header = this.cells;
      this.columns = this.fields;
      return;
    }
    if (this.fields !== this.columns) {
      const mismatch = this.mismatch(row, this.fields);
      if (separator === null) throw mismatch;
      throw new CsvError("column_count_mismatch", wrongSeparator(separator, row, `row ${row}`).message, {
        row,
        expected: this.columns,
        found: this.fields,
        separator,
      });
    }
    if (!this.collecting) return;
    this.firstRow = this.cells;
    if (isHeaderRow(this.cells, this.mode.header)) {
      throw new CsvError("header_row_in_append", "the first appended row repeats the header", { row });
    }
  }

  private mismatch(row: number, found: number): CsvError {
    const expected = this.columns;
    const message = `row ${row} has ${found} field${found === 1 ? "" : "s"}; the header has ${expected}`;
    if (this.mode.kind === "rows") return new CsvError("column_count_mismatch", message, { row, expected, found });
    const separator = this.headerSeparator();
    if (separator === null) return invalidCsv(message, row, { expected, found });
    return new CsvError("invalid_csv", `${message}; ${wrongSeparator(separator, 1, "the header").message}`, { row, expected, found, separator });
  }

  /**
   * The separator a header of several comma-separated cells splits better on (a TSV whose
   * header holds a comma), or null: checked only once a data row has failed.
   */
  private headerSeparator(): Separator | null {
    const header = this.header?.join(",") ?? "";
    const separator = likelySeparator(header);
    if (separator === null) return null;
    let fields = 1;
    for (const c of header) if (c === separator) fields++;
    return fields > this.columns ? separator : null;
  }

  private withinHeaderBytes(pos: number): boolean {
    if (pos - this.recordStart <= this.limits.maxHeaderBytes) return true;
    this.overBudget("maxHeaderBytes", this.limits.maxHeaderBytes);
    return false;
  }

  /**
   * Table mode: the header is too big, which is an error. Rows mode: the first row is only
   * kept for the header check, so stop keeping it; a row longer than the header bound cannot
   * repeat a header that had to fit in it.
   */
  private overBudget(limit: CsvLimitName, max: number): void {
    if (this.mode.kind === "table") throw limitExceeded(limit, max, 1);
    this.collecting = false;
    this.cells = [];
    this.cell.reset();
  }
}
