// Dates, datetimes and times as numbers, so they share the numeric summary: a date is days since
// 1970-01-01, a datetime microseconds since 1970-01-01T00:00:00Z (a value without a zone read as
// if it were UTC), a time microseconds since midnight (UTC when it carries a zone). Parsing reads
// char codes of the ISO text castCell gives, allocating nothing; rendering writes ISO 8601 back.
import { daysFromCivil, isoDate } from "../../schema/calendar.ts";

/** Whether the last datetime or time parsed carried a zone (`Z` or `±hh:mm`). */
export let lastZoned = false;

const MICROS_PER_DAY = 86_400_000_000;

/** `YYYY-MM-DD` → days since 1970-01-01; NaN for text of another shape. */
export function parseDate(text: string): number {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return NaN;
  const year = (text.charCodeAt(0) - 48) * 1000 + (text.charCodeAt(1) - 48) * 100 + (text.charCodeAt(2) - 48) * 10 + text.charCodeAt(3) - 48;
  return daysFromCivil(year, (text.charCodeAt(5) - 48) * 10 + text.charCodeAt(6) - 48, (text.charCodeAt(8) - 48) * 10 + text.charCodeAt(9) - 48);
}

/** Two digits at `at`. */
function two(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

/** `hh:mm:ss[.fraction][zone]` from `start` → microseconds, zone applied; sets lastZoned. */
function timeMicros(text: string, start: number): number {
  if (text.charCodeAt(start + 2) !== 58 || text.charCodeAt(start + 5) !== 58) return NaN;
  let micros = ((two(text, start) * 60 + two(text, start + 3)) * 60 + two(text, start + 6)) * 1_000_000;
  let at = start + 8;
  if (text.charCodeAt(at) === 46) {
    let scale = 100_000;
    for (at++; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c < 48 || c > 57) break;
      micros += (c - 48) * scale;
      scale /= 10;
    }
    micros = Math.floor(micros);
  }
  lastZoned = at < text.length;
  if (lastZoned && (text.charCodeAt(at) === 43 || text.charCodeAt(at) === 45)) {
    const offset = (two(text, at + 1) * 60 + two(text, at + 4)) * 60_000_000;
    micros += text.charCodeAt(at) === 43 ? -offset : offset;
  }
  return micros;
}

/** RFC 3339 date and time → microseconds since the epoch, UTC (a value without zone as if UTC). */
export function parseDatetime(text: string): number {
  return parseDate(text) * MICROS_PER_DAY + timeMicros(text, 11);
}

/** `hh:mm:ss[.fraction][zone]` → microseconds since midnight, in UTC when zoned. */
export function parseTime(text: string): number {
  const micros = timeMicros(text, 0);
  return ((micros % MICROS_PER_DAY) + MICROS_PER_DAY) % MICROS_PER_DAY;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** Days since 1970-01-01 → `YYYY-MM-DD`. */
export const formatDate = isoDate;

/** Microseconds since midnight → `hh:mm:ss[.ffffff]`, the fraction without trailing zeros. */
export function formatTime(micros: number, zoned: boolean): string {
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  const tail = fraction === 0 ? "" : `.${pad(fraction, 6).replace(/0+$/, "")}`;
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}${tail}${zoned ? "Z" : ""}`;
}

/** Microseconds since the epoch → `YYYY-MM-DDThh:mm:ss[.ffffff]`, with `Z` when the column is zoned. */
export function formatDatetime(micros: number, zoned: boolean): string {
  const days = Math.floor(micros / MICROS_PER_DAY);
  return `${formatDate(days)}T${formatTime(micros - days * MICROS_PER_DAY, zoned)}`;
}
