// Pattern formats of declared dates, datetimes and times (docs/column-types.md): Table Schema lets `format` be a
// Python strptime pattern (`%b %d %Y`), and Frictionless reads cells with Python's strptime, so
// this reads them the same way, for a documented subset of directives. Pure, no dependency.
// https://docs.python.org/3/library/datetime.html#strftime-and-strptime-format-codes

/** What a directive matches; the alternatives and their order are Python's `_strptime.TimeRE`. */
const DIRECTIVES: Record<string, string> = {
  Y: "\\d\\d\\d\\d",
  y: "\\d\\d",
  m: "1[0-2]|0[1-9]|[1-9]",
  d: "3[01]|[12]\\d|0[1-9]|[1-9]| [1-9]",
  H: "2[0-3]|[0-1]\\d|\\d",
  I: "1[0-2]|0[1-9]|[1-9]| [1-9]",
  M: "[0-5]\\d|\\d",
  S: "6[0-1]|[0-5]\\d|\\d",
  f: "[0-9]{1,6}",
  p: "am|pm",
  b: "sep|feb|aug|jan|mar|apr|may|jun|jul|oct|nov|dec",
  B: "september|february|november|december|january|october|august|march|april|july|june|may",
  a: "mon|tue|wed|thu|fri|sat|sun",
  A: "wednesday|thursday|saturday|tuesday|monday|friday|sunday",
  z: "[+-]\\d\\d:?[0-5]\\d|Z",
};

/** The directives a pattern may use, besides `%%`; documented in docs/column-types.md. */
export const PATTERN_DIRECTIVES: readonly string[] = Object.keys(DIRECTIVES);

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

export type PatternResult = { ok: true; regex: RegExp } | { ok: false; reason: string };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether `format` is a pattern rather than Table Schema's `default` or `any`. */
export function isPatternFormat(format: string | undefined): format is string {
  return format !== undefined && format !== "default" && format !== "any";
}

/**
 * Compiles a strptime pattern as Python does (whitespace matches any run of whitespace, the match
 * ignores case); refused: an unknown directive, a directive used twice, a lone `%` at the end.
 */
export function compilePattern(format: string): PatternResult {
  let source = "";
  const used = new Set<string>();
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== "%") {
      if (/\s/.test(c)) {
        while (i + 1 < format.length && /\s/.test(format[i + 1]!)) i++;
        source += "\\s+";
      } else {
        source += escapeRegExp(c);
      }
      continue;
    }
    const d = format[++i];
    if (d === undefined) return { ok: false, reason: "ends with a lone %" };
    if (d === "%") {
      source += "%";
      continue;
    }
    const regex = DIRECTIVES[d];
    if (regex === undefined) return { ok: false, reason: `%${d} is not a supported directive (supported: ${PATTERN_DIRECTIVES.map((x) => `%${x}`).join(" ")} %%)` };
    if (used.has(d)) return { ok: false, reason: `%${d} is used twice` };
    used.add(d);
    source += `(?<${d}>${regex})`;
  }
  return { ok: true, regex: new RegExp(`^(?:${source})`, "i") };
}

/** A pattern's reason to be refused, or null when it compiles. */
export function patternProblem(format: string): string | null {
  const result = compilePattern(format);
  return result.ok ? null : result.reason;
}

/** Compiled patterns by format: a column's cells share one. Bounded, as formats come from publishers. */
const compiled = new Map<string, RegExp | null>();
const MAX_COMPILED = 256;

function patternRegex(format: string): RegExp | null {
  let regex = compiled.get(format);
  if (regex === undefined) {
    const result = compilePattern(format);
    regex = result.ok ? result.regex : null;
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(format, regex);
  }
  return regex;
}

/** The moment a cell names: fields as Python's `datetime` holds them. */
export interface ParsedMoment {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** The `%f` digits as written, or "". */
  fraction: string;
  /** Minutes east of UTC, "Z" for a `Z`, or null without `%z`. */
  offset: number | "Z" | null;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function twelveHour(hour: number, ampm: string | undefined): number {
  if (ampm === undefined || ampm.toLowerCase() === "am") return hour === 12 ? 0 : hour;
  return hour === 12 ? 12 : hour + 12;
}

/**
 * Reads `text` by the pattern `format` as Python's strptime does: null where strptime raises.
 * What the pattern does not read defaults as in Python (1900-01-01, midnight, no zone); a date
 * field keeps only the date (Frictionless: `strptime(cell, format).date()`), a time field the time.
 */
export function readPattern(format: string, text: string): ParsedMoment | null {
  const regex = patternRegex(format);
  const match = regex === null ? null : regex.exec(text);
  // Python takes the first match and refuses text left over ("unconverted data remains").
  if (match === null || match[0].length !== text.length) return null;
  const g = match.groups ?? {};
  let year = 1900;
  if (g.Y !== undefined) year = Number(g.Y);
  else if (g.y !== undefined) year = Number(g.y) + (Number(g.y) <= 68 ? 2000 : 1900);
  let month = 1;
  if (g.m !== undefined) month = Number(g.m);
  else if (g.B !== undefined) month = MONTHS.indexOf(g.B.toLowerCase()) + 1;
  else if (g.b !== undefined) month = MONTHS.findIndex((name) => name.startsWith(g.b!.toLowerCase())) + 1;
  const day = g.d !== undefined ? Number(g.d) : 1;
  const hour = g.H !== undefined ? Number(g.H) : g.I !== undefined ? twelveHour(Number(g.I), g.p) : 0;
  const minute = g.M !== undefined ? Number(g.M) : 0;
  const second = g.S !== undefined ? Number(g.S) : 0;
  if (year < 1 || day > daysIn(year, month) || second > 59) return null;
  let offset: ParsedMoment["offset"] = null;
  if (g.z !== undefined) {
    if (g.z === "Z") offset = "Z";
    else if (g.z === "z") return null; // Python's `Z` is case-sensitive
    else {
      const digits = g.z.replace(":", "");
      const hours = Number(digits.slice(1, 3));
      if (hours > 23) return null;
      offset = (digits[0] === "-" ? -1 : 1) * (hours * 60 + Number(digits.slice(3, 5)));
    }
  }
  return { year, month, day, hour, minute, second, fraction: g.f ?? "", offset };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `YYYY-MM-DD`. */
export function isoDate(m: ParsedMoment): string {
  return `${pad(m.year, 4)}-${pad(m.month)}-${pad(m.day)}`;
}

/** `hh:mm:ss[.fraction]`, then `Z`, `±hh:mm`, or nothing when the pattern read no zone. */
export function isoTime(m: ParsedMoment): string {
  const time = `${pad(m.hour)}:${pad(m.minute)}:${pad(m.second)}${m.fraction === "" ? "" : `.${m.fraction}`}`;
  if (m.offset === "Z" || m.offset === 0) return `${time}Z`;
  if (m.offset === null) return time;
  return `${time}${m.offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(m.offset) / 60))}:${pad(Math.abs(m.offset) % 60)}`;
}

/** RFC 3339: `YYYY-MM-DDThh:mm:ss[.fraction]` and the zone as isoTime writes it. */
export function isoDatetime(m: ParsedMoment): string {
  return `${isoDate(m)}T${isoTime(m)}`;
}
