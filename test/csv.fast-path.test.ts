// The CSV scanner's fast paths change no behaviour: on random CSVs (quotes, doubled and bare
// quotes, CRLF, lone CRs, blank lines, a BOM, multibyte and broken UTF-8, NUL, wrong field
// counts, small limits) cut at random chunk boundaries, src/csv/scanner.ts gives exactly what
// the scanner before them (test/helpers/reference-scanner.ts) gives: bytes out and record ends
// after every chunk, stats, checkpoint, the error and its row, every cell, and the inferred schema;
// and the same for scans resumed from a checkpoint, as a resumable upload's next chunk is.
import { describe, expect, it } from "vitest";
import { CsvScanner, type CellSink, type CsvCheckpoint, type CsvLimits, type CsvMode } from "../src/csv/scanner.ts";
import { ColumnTyper } from "../src/schema/column-typer.ts";
import { concatBytes } from "../src/storage/deflate-segment.ts";
import { ReferenceScanner } from "./helpers/reference-scanner.ts";
import { mulberry32, pick, randomInt, type Random } from "./helpers/random.ts";

const encoder = new TextEncoder();

/** Cell values chosen to reach every branch: types for inference, quotes, separators, UTF-8. */
const PLAIN = ["a", "Zürich", "😀", "é", "x y", "42", "-3.5", "007", "true", "FALSE", "2024-02-29", "2023-02-29", "2024-01-02T03:04:05Z", "1e3", "NaN", "", "\t", "5'11\"", "a;b", "名"];
const QUOTED = ['"a,b"', '"x""y"', '"line\nbreak"', '"cr\r\nlf"', '""', '"é"', '""""', '"1"', '"2024-01-02"'];
const BROKEN = ['"open', '"a"b', '"a";', "\r", "\0", '"x"\t', "\u00e9".normalize("NFD")];
/** Bytes no encoder makes: a lone continuation byte, a truncated sequence, an overlong form, a surrogate. */
const BAD_UTF8 = [[0x80], [0xc3], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]];

function randomCsv(random: Random): Uint8Array {
  const broken = random() < 0.3;
  const columns = randomInt(random, 1, 5);
  const eol = random() < 0.5 ? "\n" : "\r\n";
  const parts: (string | number[])[] = [];
  if (random() < 0.1) parts.push("\ufeff");
  if (broken && random() < 0.05) parts.push(eol);
  const records = randomInt(random, 0, 14);
  for (let r = 0; r < records; r++) {
    const fields = broken && random() < 0.08 ? randomInt(random, 1, 6) : columns;
    const cells: (string | number[])[] = [];
    for (let f = 0; f < fields; f++) {
      const roll = random();
      if (broken && roll < 0.04) cells.push(pick(random, BROKEN));
      else if (broken && roll < 0.07) cells.push(pick(random, BAD_UTF8));
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

/** Every call a scanner makes on its sink, with each cell's bytes joined (pieces are short-lived). */
class RecordingSink implements CellSink {
  readonly events: string[] = [];
  #cell: number[] = [];
  header(cells: string[]): void {
    this.events.push(`header ${JSON.stringify(cells)}`);
  }
  piece(buf: Uint8Array, from: number, to: number): void {
    this.#cell.push(...buf.subarray(from, to));
  }
  cell(buf: Uint8Array, from: number, to: number): void {
    this.piece(buf, from, to);
    this.endField();
  }
  quote(): void {
    this.#cell.push(0x22);
  }
  chunkEnd(): void {}
  endField(): void {
    this.events.push(`cell ${this.#cell.join(".")}`);
    this.#cell = [];
  }
  endRecord(): void {
    this.events.push("record");
  }
  blankRecords(n: number): void {
    this.events.push(`blank ${n}`);
  }
}

type Scanner = CsvScanner | ReferenceScanner;

/** What a scan shows from outside, chunk by chunk, up to its end or its first error. */
function observe(make: (sink: CellSink) => Scanner, bytes: Uint8Array, cuts: number[]) {
  const sink = new RecordingSink();
  const scanner = make(sink);
  const steps: unknown[] = [];
  const step = (out: Uint8Array) => ({ out: [...out].join("."), recordEnd: scanner.recordEnd, rows: scanner.rowsAtRecordEnd, input: scanner.inputRecordEnd, checkpoint: scanner.checkpoint });
  let error: unknown = null;
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      steps.push(step(scanner.push(bytes.slice(from, cut))));
      from = cut;
    }
    steps.push(step(scanner.finish()));
    steps.push({ stats: scanner.stats, bom: scanner.bomBytes });
  } catch (e: unknown) {
    error = e instanceof Error ? { ...e, name: e.name, message: e.message } : e;
  }
  return { steps, error, cells: sink.events };
}

/** The schema a ColumnTyper infers through each scanner, or the error the scan ends with. */
function inferred(make: (sink: CellSink) => Scanner, bytes: Uint8Array, cuts: number[]): unknown {
  const typer = new ColumnTyper({ kind: "infer", declared: null });
  const scanner = make(typer);
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      scanner.push(bytes.slice(from, cut));
      from = cut;
    }
    scanner.finish();
    return typer.schema();
  } catch (e: unknown) {
    return e instanceof Error ? { ...e, name: e.name, message: e.message } : e;
  }
}

function randomCuts(random: Random, length: number): number[] {
  const cuts: number[] = [];
  let at = 0;
  for (;;) {
    at += random() < 0.3 ? randomInt(random, 0, 2) : randomInt(random, 1, 40);
    if (at >= length) return cuts;
    cuts.push(at);
  }
}

function randomSetup(random: Random): { mode: CsvMode; limits: CsvLimits } {
  const limits: CsvLimits = {
    maxColumns: random() < 0.2 ? randomInt(random, 1, 4) : 100,
    maxFieldBytes: random() < 0.3 ? randomInt(random, 1, 30) : 1000,
    maxHeaderBytes: random() < 0.2 ? randomInt(random, 1, 40) : 1000,
  };
  const mode: CsvMode = random() < 0.75 ? { kind: "table" } : { kind: "rows", expectedColumns: randomInt(random, 1, 5), header: ["a", "Zürich", "42"] };
  return { mode, limits };
}

function compare(bytes: Uint8Array, cuts: number[], mode: CsvMode, limits: CsvLimits, resume?: CsvCheckpoint): void {
  const fast = (sink: CellSink) => new CsvScanner(mode, limits, sink, resume);
  const reference = (sink: CellSink) => new ReferenceScanner(mode, limits, sink, resume);
  const context = `input ${[...bytes].join(".")} cut at ${cuts.join(",")} mode ${JSON.stringify(mode)} limits ${JSON.stringify(limits)} resumed ${JSON.stringify(resume)}`;
  expect(observe(fast, bytes, cuts), context).toEqual(observe(reference, bytes, cuts));
  if (mode.kind === "table" && resume === undefined) expect(inferred(fast, bytes, cuts), context).toEqual(inferred(reference, bytes, cuts));
}

/**
 * A resumable upload's next chunk: the reference scans up to a random point, and the bytes
 * after its last record end are scanned again by scanners resumed from its checkpoint.
 */
function compareResumed(random: Random, bytes: Uint8Array, mode: CsvMode, limits: CsvLimits): void {
  const first = new ReferenceScanner(mode, limits);
  try {
    first.push(bytes.slice(0, randomInt(random, 0, bytes.length)));
  } catch {
    return;
  }
  const checkpoint = first.checkpoint;
  if (checkpoint === null) return;
  const rest = bytes.slice(first.inputRecordEnd);
  compare(rest, randomCuts(random, rest.length), mode, limits, structuredClone(checkpoint));
}

describe("CsvScanner against the reference scanner", () => {
  it("agrees on 3,000 random CSVs cut at random chunk boundaries, and resumed after a record end", () => {
    const random = mulberry32(4180);
    for (let round = 0; round < 3000; round++) {
      const bytes = randomCsv(random);
      const { mode, limits } = randomSetup(random);
      compare(bytes, randomCuts(random, bytes.length), mode, limits);
      compareResumed(random, bytes, mode, limits);
    }
  });

  it("agrees with one cut at every position, and with one byte per chunk", () => {
    const random = mulberry32(1952);
    for (let round = 0; round < 150; round++) {
      const bytes = randomCsv(random);
      const { mode, limits } = randomSetup(random);
      for (let cut = 0; cut <= bytes.length; cut++) compare(bytes, [cut], mode, limits);
      compare(bytes, Array.from({ length: Math.max(0, bytes.length - 1) }, (_, i) => i + 1), mode, limits);
    }
  });
});
