// Typed failures of docs/column-types.md: a declared schema that does not fit the header (invalid_schema) and
// a cell that breaks its field's type (schema_mismatch). Plain data only; the write module maps
// them to problem+json and names the PUT that would widen the type.

export type SchemaErrorCode = "invalid_schema" | "schema_mismatch";

export interface SchemaErrorDetails {
  /** 1-based record number in the uploaded file (the header is row 1 of a table). */
  row?: number;
  /** The header name of the column. */
  column?: string;
  /** The cell as uploaded, cut to at most 64 characters. */
  value?: string;
  /** The type the cell had to satisfy. */
  expected?: string;
}

export const MAX_VALUE_CHARS = 64;

export class SchemaError extends Error {
  override readonly name = "SchemaError";
  readonly code: SchemaErrorCode;
  readonly details: SchemaErrorDetails;

  constructor(code: SchemaErrorCode, message: string, details: SchemaErrorDetails = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export function shortValue(text: string): string {
  return [...text].slice(0, MAX_VALUE_CHARS).join("");
}
