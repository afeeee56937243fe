// Deterministic randomness for property-style tests: mulberry32, a tiny seeded PRNG, and the
// generators built on it, so every failure reproduces from its seed.

export type Random = () => number;

export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

const FIELD_PIECES = ["a", "b", "Zürich", "😀", " ", ",", '"', "\n", "\r\n", "42", "-3.5", "é", "x y"];

/** A CSV field value: sometimes empty, sometimes with commas, quotes or line breaks. */
export function randomField(random: Random): string {
  const length = randomInt(random, 0, 6);
  let value = "";
  for (let i = 0; i < length; i++) value += pick(random, FIELD_PIECES);
  return value;
}

/**
 * RFC 4180 encoding of one field: quoted when it needs to be (or at random). A quote that is
 * not the first character may stay bare, as a literal (docs/api.md#writes: `5'11"`).
 */
export function encodeField(value: string, random: Random): string {
  const bareQuote = value.includes('"') && !value.startsWith('"') && random() < 0.5;
  const needsQuotes = /[,\r\n]/.test(value) || value === "" || (value.includes('"') && !bareQuote);
  return needsQuotes || random() < 0.2 ? `"${value.replace(/"/g, '""')}"` : value;
}

export function encodeRows(rows: string[][], eol: string, random: Random): string {
  return rows.map((row) => row.map((field) => encodeField(field, random)).join(",") + eol).join("");
}

export function randomTable(random: Random, columns: number, rows: number): string[][] {
  return Array.from({ length: rows }, () => Array.from({ length: columns }, () => randomField(random)));
}

/**
 * A random CSV file as users send them: 1–4 columns, LF or CRLF, sometimes a BOM, sometimes no
 * line break after the last record.
 */
export function randomCsvFile(random: Random, maxRows: number): string {
  const columns = randomInt(random, 1, 4);
  const eol = random() < 0.5 ? "\n" : "\r\n";
  const header = Array.from({ length: columns }, (_, i) => `c${i}`);
  let csv = (random() < 0.2 ? "\uFEFF" : "") + encodeRows([header, ...randomTable(random, columns, randomInt(random, 1, maxRows))], eol, random);
  if (random() < 0.3) csv = csv.slice(0, -eol.length);
  return csv;
}
