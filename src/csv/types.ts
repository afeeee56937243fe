// Shapes shared by the CSV scanner and its record checker: what kind of upload is being
// validated, the limits it must respect, and what the scan found.

/** `table`: create/replace, the first record is the header. `rows`: append, data rows only. */
export type CsvMode =
  | { kind: "table" }
  | { kind: "rows"; expectedColumns: number; header: string[] };

export interface CsvLimits {
  /** Most fields in the header record (table mode). */
  maxColumns: number;
  /** Most raw bytes in one field, surrounding quotes and doubled quotes included. */
  maxFieldBytes: number;
  /** Most raw bytes in the header record, its line break excluded (table mode). */
  maxHeaderBytes: number;
}

export interface CsvStats {
  /** Table mode: the decoded header cells. */
  header: string[] | null;
  /**
   * Rows mode: the decoded cells of the first appended record; null when that record was
   * longer than maxHeaderBytes or had more fields than maxColumns (it is then not kept).
   */
  firstRow: string[] | null;
  /** Table mode: the header's field count; rows mode: `expectedColumns`. */
  columns: number;
  /** Data records; the header is not counted. */
  rows: number;
  /** Bytes passed on in total. */
  bytes: number;
  /** Whether the bytes passed on end with a line break. */
  endsWithNewline: boolean;
  /** The first line ending seen outside quotes; "\n" when there is none. */
  eol: "\n" | "\r\n";
}

/**
 * Receives the cells of the data records as the scanner finds them (src/schema/column-typer.ts
 * types them). A cell's content arrives as zero or more pieces of the scanner's buffers plus a
 * `quote()` per doubled quote, then `endField()` (or, for most cells, one `cell()` call); pieces are valid only until `chunkEnd()`, which the scanner calls
 * at the end of every buffer. The header record's cells go to `header()` instead.
 */
export interface CellSink {
  header(cells: string[]): void;
  piece(buf: Uint8Array, from: number, to: number): void;
  /** A whole cell in one piece, with no piece or quote before it: what `piece` then `endField` do. */
  cell(buf: Uint8Array, from: number, to: number): void;
  quote(): void;
  chunkEnd(): void;
  endField(): void;
  endRecord(): void;
  /** Records that are blank lines (a one-column table): one empty cell each. */
  blankRecords(n: number): void;
}

/**
 * Takes runs of whole data records faster than the scanner's own loop (src/csv/record-kernel.ts,
 * in WebAssembly), typing their cells for the scanner's sink. The scanner offers it the rest of
 * a buffer at each record start once the first record is behind; it must take records exactly
 * as the scanner and its sink would, and stop before any record it cannot take, which the
 * scanner then reads itself (so every error is raised by the scanner).
 */
export interface RecordRun {
  /**
   * Takes whole records of `columns` fields from `buf[from]` (a record start) up to `end`, and
   * returns the offset just after the last one taken (`from` when none). `fresh`: the first
   * offer in this buffer (later offers are further into the same bytes).
   */
  take(buf: Uint8Array, from: number, end: number, columns: number, fresh: boolean): number;
  /** Records the last `take` took. */
  readonly taken: number;
}

/**
 * The scanner's state just after a record end: all a later scan needs to go on from there
 * (a resumable upload's chunks, docs/resumable-uploads.md). Plain data, kept as JSON.
 */
export interface CsvCheckpoint {
  /** Completed records, header included: later row numbers go on from here. */
  records: number;
  header: string[] | null;
  firstRow: string[] | null;
  columns: number;
  eol: "\n" | "\r\n" | null;
}
