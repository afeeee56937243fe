// The lexical forms of the column types (docs/column-types.md), one predicate each, so inference (infer.ts) and casting
// (cast.ts) read a cell the same way. Where they differ (leading zeros), each has its own. Pure.

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/i;
/** A declared time's default form: `hh:mm:ss`, optional fraction and zone, as in a datetime. */
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))?$/i;
/** Table Schema's default datetime form: `YYYY-MM-DDThh:mm:ssZ` (RFC 3339 in UTC). */
const DEFAULT_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Digits with a leading zero (`007`, `-01`; not `0`): an identifier, kept as text. */
export function hasLeadingZero(text: string): boolean {
  const digits = text.startsWith("-") || text.startsWith("+") ? text.slice(1) : text;
  return digits.length > 1 && digits.startsWith("0") && digits[1] !== "." && digits[1] !== "e" && digits[1] !== "E";
}

/** What inference takes as an integer: Table Schema's form without a leading zero. */
export function isInteger(text: string): boolean {
  return INTEGER.test(text) && !hasLeadingZero(text);
}

/** What an `integer` field takes (Table Schema's lexical form, leading zeros included: `01234` is 1234). */
export function isFieldInteger(text: string): boolean {
  return INTEGER.test(text);
}

export function isSpecialNumber(text: string): boolean {
  return text === "NaN" || text === "INF" || text === "-INF";
}

/** What inference takes as a number: no leading zero. */
export function isNumber(text: string): boolean {
  return isSpecialNumber(text) || (NUMBER.test(text) && !hasLeadingZero(text));
}

/** What a `number` field takes, leading zeros included (`007.5`), as Table Schema's decimal does. */
export function isFieldNumber(text: string): boolean {
  return isSpecialNumber(text) || NUMBER.test(text);
}

export function isBoolean(text: string): boolean {
  const lower = text.toLowerCase();
  return lower === "true" || lower === "false";
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function validDate(year: string, month: string, day: string): boolean {
  const m = Number(month);
  const d = Number(day);
  return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(Number(year), m);
}

export function isDate(text: string): boolean {
  const match = DATE.exec(text);
  return match !== null && validDate(match[1]!, match[2]!, match[3]!);
}

export function isDatetime(text: string): boolean {
  const match = DATETIME.exec(text);
  if (!match || !validDate(match[1]!, match[2]!, match[3]!)) return false;
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  if (hour > 23 || minute > 59 || second > 60) return false;
  const zone = match[8];
  if (zone && zone.length === 6) {
    const [zh, zm] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (zh > 23 || zm > 59) return false;
  }
  return true;
}

/** A time of day as a declared `time` field takes it by default (`10:30:00`, `23:59:59.5+01:00`). */
export function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (!match) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (hour > 23 || minute > 59 || second > 60) return false;
  return match[6] === undefined || (Number(match[6]) <= 23 && Number(match[7]) <= 59);
}

/** Whether a strict Table Schema reader takes the datetime without `format: "any"`. */
export function isDefaultDatetime(text: string): boolean {
  return DEFAULT_DATETIME.test(text);
}
