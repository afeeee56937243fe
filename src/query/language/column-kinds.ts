// One comparison per field type (docs/queries.md#comparisons): how a typed cell becomes a key, how
// keys order, and which literals a column of that type takes. The evaluator, the ordering and
// the pruning all compare through these, so they cannot disagree.
import type { Cell } from "../../schema/cast.ts";
import type { FieldType } from "../../schema/table-schema.ts";
import { dateKey, dateLiteral, datetimeKey, datetimeLiteral, timeKey, timeLiteral } from "./moments.ts";
import { compareIntegers, compareNumbers, integerKey, integerLiteral, numberKey, numberLiteral, type IntegerBound, type LiteralReading } from "./numbers.ts";
import type { Literal } from "./syntax.ts";
import { compareCodePoints } from "./text-order.ts";

/** A cell or literal made comparable: its form depends on the column's type. */
export type Key = number | bigint | string | IntegerBound;

export interface ColumnKind {
  /** The key of a typed cell; undefined for a missing cell or one that does not read as the type. */
  key(cell: Cell): Key | undefined;
  compare(a: Key, b: Key): number;
  literal(literal: Literal): LiteralReading<Key>;
  /** What a literal for this column must be, for errors. */
  expected: string;
}

function quoteText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function compareAscii(a: Key, b: Key): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A kind whose literals are written as text (or, for numbers, also bare). */
function textual(expected: string, read: (text: string) => LiteralReading<Key>, acceptsNumber = false) {
  return (literal: Literal): LiteralReading<Key> => {
    if (literal.kind === "text" || (acceptsNumber && literal.kind === "number")) {
      const reading = read(literal.kind === "text" ? literal.value : literal.text);
      return reading.ok ? reading : { ok: false, expected: reading.expected };
    }
    return { ok: false, expected };
  };
}

const INTEGER: ColumnKind = {
  key: integerKey,
  compare: (a, b) => compareIntegers(a as number | bigint | IntegerBound, b as number | bigint | IntegerBound),
  literal: textual("an integer", integerLiteral, true),
  expected: "an integer",
};

const NUMBER: ColumnKind = {
  key: numberKey,
  compare: (a, b) => compareNumbers(a as number, b as number),
  literal: textual("a number", numberLiteral, true),
  expected: "a number",
};

const BOOLEAN: ColumnKind = {
  key: (cell) => (typeof cell === "boolean" ? (cell ? 1 : 0) : undefined),
  compare: compareAscii,
  literal: (literal) => {
    const value = literal.kind === "boolean" ? literal.value : literal.kind === "text" ? literal.value.toLowerCase() : undefined;
    if (value === true || value === "true") return { ok: true, key: 1, canonical: "true" };
    if (value === false || value === "false") return { ok: true, key: 0, canonical: "false" };
    return { ok: false, expected: "true or false" };
  },
  expected: "true or false",
};

const STRING: ColumnKind = {
  key: (cell) => (typeof cell === "string" ? cell : undefined),
  compare: (a, b) => compareCodePoints(a as string, b as string),
  literal: (literal) => (literal.kind === "text" ? { ok: true, key: literal.value, canonical: quoteText(literal.value) } : { ok: false, expected: "text in single quotes" }),
  expected: "text in single quotes",
};

function moment(key: (cell: Cell) => string | undefined, read: (text: string) => LiteralReading<string>, expected: string): ColumnKind {
  return { key, compare: compareAscii, literal: textual(expected, read), expected };
}

export const COLUMN_KINDS: Record<FieldType, ColumnKind> = {
  integer: INTEGER,
  number: NUMBER,
  boolean: BOOLEAN,
  string: STRING,
  date: moment(dateKey, dateLiteral, "a date as text, like '2024-01-31'"),
  datetime: moment(datetimeKey, datetimeLiteral, "a datetime as text, like '2024-01-31T12:00:00Z'"),
  time: moment(timeKey, timeLiteral, "a time of day as text, like '13:30:00'"),
};

export { quoteText };
