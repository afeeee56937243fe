// Random CSVs that reach every branch of the scanner (quotes, doubled and bare quotes, CRLF,
// lone CRs, blank lines, a BOM, multibyte and broken UTF-8, NUL, wrong field counts), random
// chunk cuts and random limits: shared by the tests that hold two scanners to each other.
import type { CsvLimits, CsvMode } from "../../src/csv/scanner.ts";
import { concatBytes } from "../../src/wire/deflate-segment.ts";
import { pick, randomInt, type Random } from "./random.ts";

const encoder = new TextEncoder();

/** Cell values chosen to reach every branch: types for inference, quotes, separators, UTF-8. */
const PLAIN = ["a", "Zürich", "😀", "é", "x y", "42", "-3.5", "007", "true", "FALSE", "2024-02-29", "2023-02-29", "2024-01-02T03:04:05Z", "1e3", "NaN", "", "\t", "5'11\"", "a;b", "名"];
const QUOTED = ['"a,b"', '"x""y"', '"line\nbreak"', '"cr\r\nlf"', '""', '"é"', '""""', '"1"', '"2024-01-02"'];
const BROKEN = ['"open', '"a"b', '"a";', "\r", "\0", '"x"\t', "\u00e9".normalize("NFD")];
/** Bytes no encoder makes: a lone continuation byte, a truncated sequence, an overlong form, a surrogate. */
const BAD_UTF8 = [[0x80], [0xc3], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]];

/** Values of one type each, in every spelling and form inference tells apart, for typed columns. */
const TYPED = [
  ["0", "42", "-7", "+3", "1234567890123"],
  ["1.5", "-0.25", "1e3", ".5", "3.", "NaN", "INF", "-INF", "42", "1E-2"],
  ["true", "false", "True", "FALSE", "tRuE", "fAlSe"],
  ["2024-02-29", "1999-12-31", "2000-01-01"],
  ["2024-01-02T03:04:05Z", "2024-01-02 03:04:05", "2024-01-02t03:04:05.123z", "2024-01-02T03:04:05+01:00", "2024-01-02T23:59:60Z"],
  ['"1"', '"2024-01-02"', '"true"', '"2"'],
];
/** Values one rule away from a type: what a typed column meets as its odd stray. */
const NEAR = ["007", "-01", "00.5", "+012", "00", "00e3", "1.2.3", "1e", "1e+", "+", "-", ".", "1,5", "tru", "falsey", "2023-02-29", "2024-13-01", "2024-1-01", "2024-01-02T24:00:00Z", "2024-01-02T03:04", "2024-01-02T03:04:05+1:00", "2024-01-02T03:04:05.Z", "nan", "-NaN", "Inf", " 1", "1 "];

/**
 * `typed`: each column draws its cells from one type's values (and the odd empty cell or
 * stray), so inference stays undecided for many records instead of ending at string.
 */
export function randomCsv(random: Random, typed = false): Uint8Array {
  const broken = random() < 0.3;
  const columns = randomInt(random, 1, 5);
  const eol = random() < 0.5 ? "\n" : "\r\n";
  const parts: (string | number[])[] = [];
  if (random() < 0.1) parts.push("\ufeff");
  if (broken && random() < 0.05) parts.push(eol);
  const records = randomInt(random, 0, typed ? 40 : 14);
  const pools = typed ? Array.from({ length: columns }, () => pick(random, TYPED)) : null;
  for (let r = 0; r < records; r++) {
    const fields = broken && random() < 0.08 ? randomInt(random, 1, 6) : columns;
    const cells: (string | number[])[] = [];
    for (let f = 0; f < fields; f++) {
      const roll = random();
      if (broken && roll < 0.04) cells.push(pick(random, BROKEN));
      else if (broken && roll < 0.07) cells.push(pick(random, BAD_UTF8));
      else if (pools !== null && f < columns && roll >= 0.1) cells.push(pick(random, pools[f]!));
      else if (pools !== null && roll < 0.05) cells.push("");
      else if (pools !== null && roll < 0.08) cells.push(pick(random, NEAR));
      else if (roll < 0.3) cells.push(pick(random, QUOTED));
      else if (roll < 0.4) cells.push("x".repeat(randomInt(random, 5, 40)));
      else cells.push(pick(random, PLAIN));
      if (f < fields - 1) cells.push(",");
    }
    parts.push(...cells);
    if (r < records - 1 || random() < 0.8) parts.push(random() < 0.1 ? (eol === "\n" ? "\r\n" : "\n") : eol);
    if (random() < 0.08) parts.push(eol.repeat(randomInt(random, 1, 3)));
  }
  if (random() < 0.2) parts.push(eol.repeat(randomInt(random, 1, 3)));
  const chunks = parts.map((p) => (typeof p === "string" ? encoder.encode(p) : Uint8Array.from(p)));
  return concatBytes(chunks);
}

export function randomCuts(random: Random, length: number): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (;;) {
    at += random() < 0.3 ? randomInt(random, 0, 2) : randomInt(random, 1, 40);
    if (at >= length) return cuts;
    cuts.push(at);
  }
}

export function randomSetup(random: Random): { mode: CsvMode; limits: CsvLimits } {
  const limits: CsvLimits = {
    maxColumns: random() < 0.2 ? randomInt(random, 1, 4) : 100,
    maxFieldBytes: random() < 0.3 ? randomInt(random, 1, 30) : 1000,
    maxHeaderBytes: random() < 0.2 ? randomInt(random, 1, 40) : 1000,
  };
  const mode: CsvMode = random() < 0.75 ? { kind: "table" } : { kind: "rows", expectedColumns: randomInt(random, 1, 5), header: ["a", "Zürich", "42"] };
  return { mode, limits };
}

