// Typed failures of CSV validation (the 422 rows of docs/api.md#errors, plus size limits). Errors carry
// plain data only, so the HTTP layer can map `code` to a status and copy row/expected/found
// into the problem+json body without reading the message.
import { separatorName, type Separator } from "./separator-hint.ts";

export type CsvErrorCode =
  | "invalid_csv"
  | "empty_csv"
  | "column_count_mismatch"
  | "header_row_in_append"
  | "empty_append"
  | "csv_limit_exceeded";

/** Which limit a `csv_limit_exceeded` error hit: a `CsvLimits` key, or the fixed blank-line bound. */
export type CsvLimitName = "maxColumns" | "maxFieldBytes" | "maxHeaderBytes" | "blankLineRun";

export interface CsvErrorDetails {
  /** 1-based record number within the uploaded part (see `CsvScanner`). */
  row?: number;
  expected?: number;
  found?: number;
  limit?: CsvLimitName;
  /** The value of the limit that was exceeded. */
  max?: number;
  /** The separator the content looks split by instead of commas (docs/api.md#writes). */
  separator?: Separator;
}

export interface CsvErrorJson extends CsvErrorDetails {
  code: CsvErrorCode;
  message: string;
}

export class CsvError extends Error {
  override readonly name = "CsvError";
  readonly code: CsvErrorCode;
  readonly row?: number;
  readonly expected?: number;
  readonly found?: number;
  readonly limit?: CsvLimitName;
  readonly max?: number;
  readonly separator?: Separator;

  constructor(code: CsvErrorCode, message: string, details: CsvErrorDetails = {}) {
    super(message);
    this.code = code;
    if (details.row !== undefined) this.row = details.row;
    if (details.expected !== undefined) this.expected = details.expected;
    if (details.found !== undefined) this.found = details.found;
    if (details.limit !== undefined) this.limit = details.limit;
    if (details.max !== undefined) this.max = details.max;
    if (details.separator !== undefined) this.separator = details.separator;
  }

  /** The error as plain data: code, message and whichever details are set. */
  toJSON(): CsvErrorJson {
    const json: CsvErrorJson = { code: this.code, message: this.message };
    if (this.row !== undefined) json.row = this.row;
    if (this.expected !== undefined) json.expected = this.expected;
    if (this.found !== undefined) json.found = this.found;
    if (this.limit !== undefined) json.limit = this.limit;
    if (this.max !== undefined) json.max = this.max;
    if (this.separator !== undefined) json.separator = this.separator;
    return json;
  }
}

/** The scanner's words for the two line and byte faults a spreadsheet's export most often has. */
export const LONE_CR =
  "a CR not followed by LF: lines must end in LF or CRLF; a lone CR (the line end of classic Mac OS) is refused " +
  "rather than guessed at, so save the file with LF or CRLF line ends";
export const NOT_UTF8 = 'invalid UTF-8: CSV is read as UTF-8; save the file as UTF-8 (in Excel, "CSV UTF-8")';

export function invalidCsv(message: string, row: number, extra: CsvErrorDetails = {}): CsvError {
  return new CsvError("invalid_csv", message, { row, ...extra });
}

export function limitExceeded(limit: CsvLimitName, max: number, row: number): CsvError {
  return new CsvError("csv_limit_exceeded", `row ${row} exceeds ${limit} (${max})`, { row, limit, max });
}

/** invalid_csv for content that looks separated by `separator` instead of commas. */
export function wrongSeparator(separator: Separator, row: number, what: string): CsvError {
  const message = `${what} looks separated by ${separatorName(separator)}, not commas; pubset reads comma-separated CSV only, so export the file with commas as separators`;
  return new CsvError("invalid_csv", message, { row, separator });
}
