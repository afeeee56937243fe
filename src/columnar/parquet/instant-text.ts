// The text a stored instant reads back as: `YYYY-MM-DDThh:mm:ss[.f…]` with `Z` when adjusted to
// UTC, or `hh:mm:ss[.f…]` for a time of day, with a chunk's fraction digits. A chunk whose every
// cell was written in that form (instantDigits in cell-values.ts) is answered from the twin as
// written; others are read from the CSV (docs/queries.md "Cost").
import { isoDate } from "../../schema/calendar.ts";
import type { ColumnKind } from "./column-kinds.ts";

const DAY_MICROS = 86_400_000_000;
const DAY_MICROS_BIG = 86_400_000_000n;

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `hh:mm:ss[.f…]` of microseconds since midnight, with `digits` fraction digits (0–6). */
function clockText(micros: number, digits: number): string {
  const seconds = Math.floor(micros / 1e6);
  const text = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  return digits === 0 ? text : `${text}.${String(micros % 1e6).padStart(6, "0").slice(0, digits)}`;
}

/** The text of an INT64 value of a time or timestamp kind (microseconds, as two 32-bit halves) with `digits` fraction digits. */
export function instantText(lo: number, hi: number, kind: ColumnKind, digits: number): string {
  const value = hi * 4294967296 + lo;
  if (kind === "time") return clockText(value, digits);
  let days: number;
  let rest: number;
  if (Number.isSafeInteger(value)) {
    days = Math.floor(value / DAY_MICROS);
    rest = value - days * DAY_MICROS;
  } else {
    const big = (BigInt(hi) << 32n) + BigInt(lo);
    let whole = big / DAY_MICROS_BIG;
    if (big < 0n && whole * DAY_MICROS_BIG !== big) whole -= 1n;
    days = Number(whole);
    rest = Number(big - whole * DAY_MICROS_BIG);
  }
  return `${isoDate(days)}T${clockText(rest, digits)}${kind === "timestamp-utc" ? "Z" : ""}`;
}
