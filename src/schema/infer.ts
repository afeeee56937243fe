// Column types inferred over every row while the content streams in (SPEC C2): for each column,
// the narrowest of integer → number → boolean → date → datetime → string that every
// non-missing cell satisfies. State is a few flags per column, so memory stays flat in the
// file's size. Pure: cells in, a Table Schema out.
import { isBoolean, isDate, isDatetime, isDefaultDatetime, isInteger, isNumber } from "./lexical.ts";
import { DEFAULT_MISSING_VALUES, FIELD_TYPES, type Field, type FieldType, type TableSchema } from "./table-schema.ts";

const INTEGER = 1;
const NUMBER = 2;
const BOOLEAN = 4;
const DATE = 8;
const DATETIME = 16;
const ALL = INTEGER | NUMBER | BOOLEAN | DATE | DATETIME;
const BITS: Record<Exclude<FieldType, "string">, number> = { integer: INTEGER, number: NUMBER, boolean: BOOLEAN, date: DATE, datetime: DATETIME };

/** The types `text` satisfies, as bits; a string satisfies none of them. */
function candidatesOf(text: string): number {
  // Cheap first-character dispatch keeps the common cases to one or two tests.
  let bits = 0;
  if (isInteger(text)) bits |= INTEGER | NUMBER;
  else if (isNumber(text)) bits |= NUMBER;
  else if (isBoolean(text)) bits |= BOOLEAN;
  else if (text.length === 10 && isDate(text)) bits |= DATE;
  else if (text.length >= 19 && isDatetime(text)) bits |= DATETIME;
  return bits;
}

export class TypeInference {
  private readonly columns: string[];
  private readonly missing: Set<string>;
  private readonly remaining: number[];
  private readonly seen: boolean[];
  private readonly allDefaultDatetime: boolean[];

  constructor(columns: string[], missingValues: readonly string[] = DEFAULT_MISSING_VALUES) {
    this.columns = columns;
    this.missing = new Set(missingValues);
    this.remaining = columns.map(() => ALL);
    this.seen = columns.map(() => false);
    this.allDefaultDatetime = columns.map(() => true);
  }

  /** One data row's cells, in column order. */
  observe(cells: readonly string[]): void {
    for (let i = 0; i < cells.length && i < this.remaining.length; i++) {
      const text = cells[i]!;
      if (this.missing.has(text)) continue;
      this.seen[i] = true;
      const left = this.remaining[i]!;
      if (left === 0) continue;
      const now = left & candidatesOf(text);
      this.remaining[i] = now;
      if (now & DATETIME && !isDefaultDatetime(text)) this.allDefaultDatetime[i] = false;
    }
  }

  /** The inferred schema; a column with no value at all is a string. */
  schema(): TableSchema {
    const fields = this.columns.map((name, i): Field => {
      const left = this.seen[i] ? this.remaining[i]! : 0;
      const type = FIELD_TYPES.find((t) => t === "string" || (left & BITS[t]) !== 0) ?? "string";
      const field: Field = { name, type };
      if (type === "datetime" && !this.allDefaultDatetime[i]) field.format = "any";
      return field;
    });
    return { fields, missingValues: [...this.missing] };
  }
}
