// How a field's cells reach the fast readers of cell-values.ts: most fields take the cell as it is;
// a field with group or decimal characters, declared boolean values or a pattern format is read
// through castCell first, so every cell means exactly what castCell says it means.
import { castCell } from "../../schema/cast.ts";
import { isPatternFormat } from "../../schema/strftime.ts";
import { DEFAULT_FALSE_VALUES, DEFAULT_TRUE_VALUES, type Field } from "../../schema/table-schema.ts";
import { DATETIME_INVALID, DATETIME_ZONED, INTEGER_DECIMAL, INTEGER_OK, readDate, readDatetime, readInteger, readNumber, readTime, textBytes, TIME_INVALID, TIME_ZONED } from "./cell-values.ts";
import type { ColumnKind } from "./column-kinds.ts";

const NOTHING_MISSING: ReadonlySet<string> = new Set();

/** Text in the canonical lexical form of the field's type, or undefined when the cell does not cast. */
export type Canonical = (text: string) => string | undefined;

/** The canonical form of `field`'s cells through castCell, or null when cells are canonical already. */
export function canonicalText(field: Field): Canonical | null {
  const needsCast =
    ((field.type === "integer" || field.type === "number") && (field.groupChar !== undefined || (field.decimalChar !== undefined && field.decimalChar !== "."))) ||
    ((field.type === "date" || field.type === "datetime" || field.type === "time") && isPatternFormat(field.format));
  if (!needsCast) return null;
  const plain: Field = { ...field, constraints: {} };
  return (text) => {
    const cast = castCell(plain, text, NOTHING_MISSING);
    if (!cast.ok || cast.value === null || typeof cast.value === "boolean") return undefined;
    return typeof cast.value === "number" ? String(cast.value) : cast.value;
  };
}

/** A boolean field's cells and their values; `undefined` from the lookup means the cell is not a boolean. */
export function booleanLookup(field: Field): (text: string) => boolean | undefined {
  const table = new Map<string, boolean>();
  for (const text of field.falseValues ?? DEFAULT_FALSE_VALUES) table.set(text, false);
  for (const text of field.trueValues ?? DEFAULT_TRUE_VALUES) table.set(text, true);
  const anyCase = !field.trueValues && !field.falseValues;
  if (anyCase) {
    return (text) => {
      if (text === "true") return true;
      if (text === "false") return false;
      const lower = text.toLowerCase();
      return lower === "true" ? true : lower === "false" ? false : undefined;
    };
  }
  return (text) => {
    const known = table.get(text);
    if (known !== undefined || !anyCase) return known;
    const lower = text.toLowerCase();
    return lower === "true" ? true : lower === "false" ? false : undefined;
  };
}

/** The least kind at or above `kind` that holds the cell `text` (already canonical). */
export function cellKind(kind: ColumnKind, text: string, isBoolean: (text: string) => boolean | undefined): ColumnKind {
  const bytes = textBytes(text);
  const n = text.length;
  switch (kind) {
    case "int64":
    case "decimal": {
      const status = readInteger(bytes, 0, n);
      if (status === INTEGER_OK) return kind;
      return status === INTEGER_DECIMAL ? "decimal" : "string";
    }
    case "double":
      return readNumber(bytes, 0, n) === undefined ? "string" : kind;
    case "boolean":
      return isBoolean(text) === undefined ? "string" : kind;
    case "date":
      return Number.isNaN(readDate(bytes, 0, n)) ? "string" : kind;
    case "time": {
      const micros = readTime(bytes, 0, n);
      return micros === TIME_INVALID || micros === TIME_ZONED ? "string" : kind;
    }
    case "timestamp":
    case "timestamp-utc":
    case "timestamp-local": {
      const status = readDatetime(bytes, 0, n);
      if (status === DATETIME_INVALID) return "string";
      const used = status === DATETIME_ZONED ? "timestamp-utc" : "timestamp-local";
      return kind === "timestamp" || kind === used ? used : "string";
    }
    case "string":
      return kind;
  }
}
