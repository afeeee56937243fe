// Dates, datetimes and times of day as the query language compares them (docs/queries.md#comparisons):
// each becomes a key that sorts as text in time order. A datetime with an offset is the instant
// it names; one without is read as UTC, as DuckDB reads it into TIMESTAMPTZ with TimeZone=UTC.
import { isDate, isDatetime, isTime } from "../../schema/lexical.ts";
import type { Cell } from "../../schema/cast.ts";
import type { LiteralReading } from "./numbers.ts";
import { daysFromCivil, isoDate } from "../../schema/calendar.ts";

/** Seconds added so every instant from year 0 to 9999 is a positive 13-digit count. */
const EPOCH_SHIFT = 1e12;

function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    value = value * 10 + d;
  }
  return value;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** Seconds, the fraction's digits without trailing zeros, and the offset in minutes, of `hh:mm:ss[.f][Z|±hh:mm]` at `start`. */
function clock(text: string, start: number): { seconds: number; fraction: string; offset: number } | undefined {
  const seconds = digitsAt(text, start, 2) * 3600 + digitsAt(text, start + 3, 2) * 60 + digitsAt(text, start + 6, 2);
  if (Number.isNaN(seconds)) return undefined;
  let i = start + 8;
  let fraction = "";
  if (text.charCodeAt(i) === 46) {
    const from = ++i;
    let last = from;
    for (; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 48 || unit > 57) break;
      if (unit !== 48) last = i + 1;
    }
    fraction = text.slice(from, last);
  }
  let offset = 0;
  const zone = text.charCodeAt(i);
  // `+` and `-`; `Z` and no zone are UTC.
  if (zone === 43 || zone === 45) offset = (zone === 45 ? -1 : 1) * (digitsAt(text, i + 1, 2) * 60 + digitsAt(text, i + 4, 2));
  return Number.isNaN(offset) ? undefined : { seconds, fraction, offset };
}

function fixed(seconds: number, width: number, fraction: string): string {
  const whole = String(seconds);
  const padded = whole.length < width ? whole.padStart(width, "0") : whole;
  return fraction === "" ? padded : `${padded}.${fraction}`;
}

/** A date cell is its ISO text, which already sorts in time order. */
export function dateKey(cell: Cell): string | undefined {
  return typeof cell === "string" ? cell : undefined;
}

/** The last datetime read and its key: columns often repeat a value row after row. */
let lastDatetime = "";
let lastDatetimeKey: string | undefined;

/** An instant: seconds since year 0 in 13 digits, then `.fraction` when there is one. */
export function datetimeKey(cell: Cell): string | undefined {
  if (typeof cell !== "string" || cell.length < 19) return undefined;
  if (cell === lastDatetime) return lastDatetimeKey;
  lastDatetime = cell;
  lastDatetimeKey = instant(cell);
  return lastDatetimeKey;
}

function instant(cell: string): string | undefined {
  const days = daysFromCivil(digitsAt(cell, 0, 4), digitsAt(cell, 5, 2), digitsAt(cell, 8, 2));
  const time = clock(cell, 11);
  if (time === undefined || Number.isNaN(days)) return undefined;
  return fixed(days * 86400 + time.seconds - time.offset * 60 + EPOCH_SHIFT, 13, time.fraction);
}

/** A time of day, moved to UTC when it has an offset (wrapping past midnight). */
export function timeKey(cell: Cell): string | undefined {
  if (typeof cell !== "string") return undefined;
  const time = clock(cell, 0);
  if (time === undefined) return undefined;
  return fixed((((time.seconds - time.offset * 60) % 86400) + 86400) % 86400, 5, time.fraction);
}

function clockText(seconds: number, fraction: string): string {
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}${fraction ? `.${fraction}` : ""}`;
}

export function dateLiteral(text: string): LiteralReading<string> {
  return isDate(text) ? { ok: true, key: text, canonical: `'${text}'` } : { ok: false, expected: "a date as text, like '2024-01-31'" };
}

/** Canonical: the instant in UTC, `YYYY-MM-DDThh:mm:ss[.f]Z`. */
export function datetimeLiteral(text: string): LiteralReading<string> {
  const key = isDatetime(text) ? datetimeKey(text) : undefined;
  if (key === undefined) return { ok: false, expected: "a datetime as text, like '2024-01-31T12:00:00Z'" };
  const [whole, fraction = ""] = key.split(".");
  const seconds = Number(whole) - EPOCH_SHIFT;
  const days = Math.floor(seconds / 86400);
  return { ok: true, key, canonical: `'${isoDate(days)}T${clockText(seconds - days * 86400, fraction)}Z'` };
}

/** Canonical: the time of day in UTC without a zone, `hh:mm:ss[.f]`. */
export function timeLiteral(text: string): LiteralReading<string> {
  const key = isTime(text) ? timeKey(text) : undefined;
  if (key === undefined) return { ok: false, expected: "a time of day as text, like '13:30:00'" };
  const [whole, fraction = ""] = key.split(".");
  return { ok: true, key, canonical: `'${clockText(Number(whole), fraction)}'` };
}
