// Numbers as the query language compares them (docs/queries.md#comparisons): integers exactly
// (BigInt past ±(2^53−1), which cells carry as text), numbers as 64-bit floats with NaN equal to
// itself and above every other number, as DuckDB and PostgreSQL order them.
import { isFieldInteger, isFieldNumber } from "../../schema/lexical.ts";
import type { Cell } from "../../schema/cast.ts";
import { MAX_EXPONENT } from "./syntax.ts";

/** A literal strictly between `floor` and `floor + 1`: what `1.5` is to an integer column. */
export interface IntegerBound {
  floor: bigint;
}
export type IntegerKey = number | bigint;

export type LiteralReading<K> = { ok: true; key: K; canonical: string } | { ok: false; expected: string };

export function integerKey(cell: Cell): IntegerKey | undefined {
  if (typeof cell === "number") return Number.isInteger(cell) ? cell : undefined;
  return typeof cell === "string" && isFieldInteger(cell) ? BigInt(cell) : undefined;
}

export function numberKey(cell: Cell): number | undefined {
  if (typeof cell === "number") return cell;
  if (typeof cell !== "string") return undefined;
  if (cell === "NaN") return NaN;
  if (cell === "INF") return Infinity;
  if (cell === "-INF") return -Infinity;
  return isFieldNumber(cell) ? Number(cell) : undefined;
}

/** Mixed number/bigint comparison is exact in JavaScript; a bound sits between two integers. */
export function compareIntegers(a: IntegerKey | IntegerBound, b: IntegerKey | IntegerBound): number {
  if (typeof b === "object") return typeof a === "object" ? (a.floor < b.floor ? -1 : a.floor > b.floor ? 1 : 0) : a <= b.floor ? -1 : 1;
  if (typeof a === "object") return -compareIntegers(b, a);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order: -INF < … < INF < NaN, and NaN equals NaN (DuckDB's order for DOUBLE). */
export function compareNumbers(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
}

interface ExactDecimal {
  negative: boolean;
  digits: bigint;
  /** The value is digits × 10^exponent. */
  exponent: number;
}

/** Reads a number literal (sign, digits, fraction, exponent) exactly; null when its exponent is out of bounds. */
function exactDecimal(text: string): ExactDecimal | null {
  const negative = text.startsWith("-");
  const unsigned = text.startsWith("-") || text.startsWith("+") ? text.slice(1) : text;
  const e = unsigned.search(/[eE]/);
  const mantissa = e < 0 ? unsigned : unsigned.slice(0, e);
  const written = e < 0 ? 0 : Number(unsigned.slice(e + 1));
  if (Math.abs(written) > MAX_EXPONENT) return null;
  const point = mantissa.indexOf(".");
  const whole = point < 0 ? mantissa : mantissa.slice(0, point);
  const fraction = point < 0 ? "" : mantissa.slice(point + 1);
  return { negative, digits: BigInt(`${whole}${fraction}` || "0"), exponent: written - fraction.length };
}

/** `digits × 10^exponent` written out without an exponent, trailing zeros of a fraction dropped. */
function plain(value: ExactDecimal): string {
  const sign = value.negative && value.digits !== 0n ? "-" : "";
  if (value.exponent >= 0) return `${sign}${value.digits * 10n ** BigInt(value.exponent)}`;
  const text = value.digits.toString().padStart(-value.exponent + 1, "0");
  const cut = text.length + value.exponent;
  const fraction = text.slice(cut).replace(/0+$/, "");
  return `${sign}${text.slice(0, cut)}${fraction ? `.${fraction}` : ""}`;
}

const NUMBER_RANGE = `a number within ±${Number.MAX_VALUE.toPrecision(3)} (or 'INF', '-INF', 'NaN')`;

/** A plain number when it is exact as one: cells compare faster against it. */
function smallest(value: bigint): IntegerKey {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/** A literal for an integer column: a number, or text holding one; `1.5` becomes a bound. */
export function integerLiteral(text: string): LiteralReading<IntegerKey | IntegerBound> {
  if (!isFieldNumber(text) || text === "NaN" || text === "INF" || text === "-INF") return { ok: false, expected: "an integer" };
  const value = exactDecimal(text);
  if (value === null) return { ok: false, expected: `a number with an exponent within ±${MAX_EXPONENT}` };
  const canonical = plain(value);
  const signed = value.negative ? -value.digits : value.digits;
  if (value.exponent >= 0) return { ok: true, key: smallest(signed * 10n ** BigInt(value.exponent)), canonical };
  const scale = 10n ** BigInt(-value.exponent);
  const quotient = signed / scale;
  if (quotient * scale === signed) return { ok: true, key: smallest(quotient), canonical };
  return { ok: true, key: { floor: signed < 0n ? quotient - 1n : quotient }, canonical };
}

/** A literal for a number column: a finite number, or 'NaN', 'INF', '-INF' (or a number) as text. */
export function numberLiteral(text: string): LiteralReading<number> {
  if (text === "NaN" || text === "INF" || text === "-INF") return { ok: true, key: numberKey(text)!, canonical: `'${text}'` };
  if (!isFieldNumber(text)) return { ok: false, expected: "a number" };
  const value = Number(text);
  if (!Number.isFinite(value)) return { ok: false, expected: NUMBER_RANGE };
  return { ok: true, key: value, canonical: String(value) };
}
