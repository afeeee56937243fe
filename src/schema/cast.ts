// Reading one cell as its field's type (docs/column-types.md): the check a declared type holds every cell to,
// and the typed value `/rows` answers. Integers past ±(2^53−1) and NaN/INF stay their exact
// text, as JSON has no other way to carry them. A field reads a cell as Frictionless does:
// `01234` in an integer field is 1234 (only inference keeps such a column text), and a date in
// a pattern format (`%b %d %Y`) is answered in ISO 8601 (`2000-01-01`). Pure.
import { isBoolean, isDate, isDatetime, isFieldInteger, isFieldNumber, isSpecialNumber, isTime } from "./lexical.ts";
import { isoDate, isoDatetime, isoTime, isPatternFormat, readPattern } from "./strftime.ts";
import { DEFAULT_FALSE_VALUES, DEFAULT_TRUE_VALUES, type Field, type TableSchema } from "./table-schema.ts";

export type Cell = string | number | boolean | null;

export type CastResult = { ok: true; value: Cell } | { ok: false; expected: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A number written with the field's decimal and group characters, in JSON's form. */
function normalisedNumber(field: Field, text: string): string {
  let out = text;
  if (field.groupChar) out = out.replace(new RegExp(escapeRegExp(field.groupChar), "g"), "");
  if (field.decimalChar && field.decimalChar !== ".") out = out.replace(new RegExp(escapeRegExp(field.decimalChar), "g"), ".");
  return out;
}

function numberValue(text: string): Cell {
  if (isSpecialNumber(text)) return text;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

function integerValue(text: string): Cell {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

/** Casts `text` for `field`; a missing cell is null (refused when the field is required). */
export function castCell(field: Field, text: string, missingValues: ReadonlySet<string>): CastResult {
  if (missingValues.has(text)) return field.constraints?.required ? { ok: false, expected: `${field.type} (required)` } : { ok: true, value: null };
  switch (field.type) {
    case "integer": {
      const plain = field.groupChar ? normalisedNumber({ name: field.name, type: "integer", groupChar: field.groupChar }, text) : text;
      return isFieldInteger(plain) ? { ok: true, value: integerValue(plain) } : { ok: false, expected: "integer" };
    }
    case "number": {
      const plain = normalisedNumber(field, text);
      return isFieldNumber(plain) ? { ok: true, value: numberValue(plain) } : { ok: false, expected: "number" };
    }
    case "boolean": {
      const trueValues = field.trueValues ?? DEFAULT_TRUE_VALUES;
      const falseValues = field.falseValues ?? DEFAULT_FALSE_VALUES;
      if (trueValues.includes(text)) return { ok: true, value: true };
      if (falseValues.includes(text)) return { ok: true, value: false };
      // Inferred booleans accept any case (docs/column-types.md); declared lists are exact, as Table Schema says.
      if (!field.trueValues && !field.falseValues && isBoolean(text)) return { ok: true, value: text.toLowerCase() === "true" };
      return { ok: false, expected: "boolean" };
    }
    case "date": {
      if (!isPatternFormat(field.format)) return isDate(text) ? { ok: true, value: text } : { ok: false, expected: "date" };
      const moment = readPattern(field.format, text);
      return moment ? { ok: true, value: isoDate(moment) } : { ok: false, expected: `date (${field.format})` };
    }
    case "datetime": {
      if (!isPatternFormat(field.format)) return isDatetime(text) ? { ok: true, value: text } : { ok: false, expected: "datetime" };
      const moment = readPattern(field.format, text);
      return moment ? { ok: true, value: isoDatetime(moment) } : { ok: false, expected: `datetime (${field.format})` };
    }
    case "time": {
      if (!isPatternFormat(field.format)) return isTime(text) ? { ok: true, value: text } : { ok: false, expected: "time" };
      const moment = readPattern(field.format, text);
      return moment ? { ok: true, value: isoTime(moment) } : { ok: false, expected: `time (${field.format})` };
    }
    case "string":
      return { ok: true, value: text };
  }
}

/** A data row typed by `schema`; a cell that does not fit its field stays text. */
export function typedRow(schema: TableSchema, missingValues: ReadonlySet<string>, cells: readonly string[]): Cell[] {
  return cells.map((text, i) => {
    const field = schema.fields[i];
    if (!field) return text;
    const cast = castCell(field, text, missingValues);
    return cast.ok ? cast.value : text;
  });
}
