// Chunk-boundary independence of the CSV scanner: seeded random tables (quotes, commas,
// CR/LF inside fields, multi-byte UTF-8) fed in random chunk sizes must always produce the
// same bytes and stats, equal to the input minus BOM and trailing blank lines.
import { describe, expect, it } from "vitest";
import { CsvError, CsvScanner, parseCsvRecords, type CsvLimits, type CsvMode, type CsvStats } from "../src/csv/index.ts";
import { mulberry32 } from "./helpers/random.ts";

const LIMITS: CsvLimits = { maxColumns: 64, maxFieldBytes: 4096, maxHeaderBytes: 65536 };
const SEEDS = 200;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

type Random = () => number;
const int = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, 0, items.length - 1)]!;

const PIECES = ["a", "bc", "x y", " lead", "trail ", "é", "😀", "€", "日本", ",", '"', '""', "\r", "\n", "\r\n", "\t", "42", ""];
const EOLS = ["\n", "\r\n"] as const;

interface Generated {
  table: string[][];
  /** The upload: optional BOM, records, optional trailing line breaks. */
  input: string;
  /** What the scanner must pass on. */
  expected: string;
  eol: "\n" | "\r\n";
}

function cell(random: Random): string {
  let s = "";
  for (let n = int(random, 0, 4); n > 0; n--) s += pick(random, PIECES);
  return s;
}

/** Quoted when it must be, or at random; a quote not at the start may stay bare (`5'11"`). */
function encodeCell(value: string, random: Random, forceQuotes: boolean): string {
  const bareQuote = value.includes('"') && !value.startsWith('"') && random() < 0.5;
  if (forceQuotes || /[\r\n,]/.test(value) || (value.includes('"') && !bareQuote) || random() < 0.2) {
    return `"${value.replaceAll('"', '""')}"`;
  }
  return value;
}

/**
 * In a one-column table an unquoted empty value is a blank line, refused as the header and
 * dropped at the end; an unquoted header holding a tab would look tab-separated (docs/api.md#writes).
 */
function mustQuote(value: string, columns: number, r: number, last: number): boolean {
  if (columns !== 1) return false;
  return (value === "" && (r === 0 || r === last)) || (r === 0 && value.includes("\t"));
}

/** A table and its encoding; `from` skips leading records (1 = data rows only, for appends). */
function generate(seed: number, from = 0): Generated {
  const random = mulberry32(seed);
  const columns = int(random, 1, 5);
  const table = Array.from({ length: int(random, 1, 26) }, () => Array.from({ length: columns }, () => cell(random)));
  const style = int(random, 0, 2); // LF, CRLF, or mixed per line
  const eol = (): "\n" | "\r\n" => (style === 2 ? pick(random, EOLS) : EOLS[style]!);
  const lines = table.map((row, r) => row.map((value) => encodeCell(value, random, mustQuote(value, columns, r, table.length - 1))).join(","));
  const separators = lines.map(eol);
  const tail = int(random, 0, 2); // no final line break, one, or one plus blank lines
  let blanks = "";
  for (let n = tail === 2 ? int(random, 1, 4) : 0; n > 0; n--) blanks += eol();
  let expected = "";
  for (let r = from; r < lines.length; r++) {
    expected += lines[r];
    if (r < lines.length - 1 || tail > 0) expected += separators[r];
  }
  const firstEol = lines.length - from > 1 || tail > 0 ? separators[from]! : "\n";
  const bom = random() < 0.3 ? "\uFEFF" : "";
  return { table: table.slice(from), input: bom + expected + blanks, expected, eol: firstEol };
}

/** Splits `bytes` into chunks of random sizes from 1 to `most`. */
function chunk(bytes: Uint8Array, random: Random, most: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = int(random, 1, most);
    chunks.push(bytes.slice(at, at + size));
    at += size;
  }
  return chunks;
}

function chunkings(bytes: Uint8Array, seed: number): Uint8Array[][] {
  const random = mulberry32(seed ^ 0x5eed);
  return [[bytes], chunk(bytes, random, 1), chunk(bytes, random, 3), chunk(bytes, random, 17), chunk(bytes, random, bytes.length)];
}

type Outcome = { out: Uint8Array; stats: CsvStats } | { error: ReturnType<CsvError["toJSON"]> };

function scan(chunks: Uint8Array[], mode: CsvMode): Outcome {
  const scanner = new CsvScanner(mode, LIMITS);
  const parts: number[] = [];
  try {
    for (const c of chunks) parts.push(...scanner.push(c));
    parts.push(...scanner.finish());
  } catch (err: unknown) {
    if (err instanceof CsvError) return { error: err.toJSON() };
    throw err;
  }
  return { out: Uint8Array.from(parts), stats: scanner.stats };
}

/** The outcome, after checking that every chunking gives the same one. */
function scanAllWays(input: Uint8Array, seed: number, mode: CsvMode): Outcome {
  const [first, ...rest] = chunkings(input, seed).map((chunks) => scan(chunks, mode));
  rest.forEach((outcome, k) => expect(outcome, `seed ${seed}, chunking ${k + 1}`).toEqual(first));
  return first!;
}

describe("chunk-boundary independence", () => {
  it("passes every generated table through unchanged in table mode", () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const g = generate(seed);
      const outcome = scanAllWays(encoder.encode(g.input), seed, { kind: "table" });
      if ("error" in outcome) throw new Error(`seed ${seed}: ${outcome.error.message}`);
      const text = decoder.decode(outcome.out);
      expect(text, `seed ${seed}`).toBe(g.expected);
      expect(outcome.stats).toEqual({
        header: g.table[0],
        firstRow: null,
        columns: g.table[0]!.length,
        rows: g.table.length - 1,
        bytes: encoder.encode(g.expected).length,
        endsWithNewline: /\n$/.test(g.expected),
        eol: g.eol,
      });
      expect(parseCsvRecords(text)).toEqual(g.table);
    }
  });

  it("passes every generated set of data rows through unchanged in rows mode", () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const g = generate(seed, 1);
      const columns = generate(seed).table[0]!.length;
      const header = Array.from({ length: columns }, (_, i) => `col${i}`);
      const outcome = scanAllWays(encoder.encode(g.input), seed, { kind: "rows", expectedColumns: columns, header });
      if (g.table.length === 0) {
        expect(outcome).toMatchObject({ error: { code: "empty_append" } });
        continue;
      }
      if ("error" in outcome) throw new Error(`seed ${seed}: ${outcome.error.message}`);
      expect(decoder.decode(outcome.out), `seed ${seed}`).toBe(g.expected);
      expect(outcome.stats).toMatchObject({ header: null, firstRow: g.table[0], columns, rows: g.table.length, eol: g.eol });
      expect(parseCsvRecords(g.expected)).toEqual(g.table);
    }
  });
});

describe("corrupted input", () => {
  const corrupt = (seed: number, bytes: number[]): Uint8Array => {
    const valid = encoder.encode(generate(seed).input);
    const at = int(mulberry32(seed), 0, valid.length);
    return Uint8Array.from([...valid.subarray(0, at), ...bytes, ...valid.subarray(at)]);
  };

  it("rejects a NUL byte or ill-formed UTF-8 inserted anywhere, in every chunking", () => {
    const faults = [[0x00], [0x80], [0xff], [0xc3], [0xf0, 0x9f], [0xed, 0xbf, 0xbf]];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const fault = faults[seed % faults.length]!;
      const outcome = scanAllWays(corrupt(seed, fault), seed, { kind: "table" });
      expect(outcome, `seed ${seed}`).toMatchObject({ error: { code: "invalid_csv" } });
    }
  });

  it("rejects input that ends inside a quoted field, in every chunking", () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const input = encoder.encode(`${generate(seed).expected}\n"open, "" and on\r\n`);
      const outcome = scanAllWays(input, seed, { kind: "table" });
      expect(outcome, `seed ${seed}`).toMatchObject({ error: { code: "invalid_csv" } });
    }
  });
});
