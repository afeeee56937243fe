// The CSV scanner's fast paths change no behaviour: on random CSVs (quotes, doubled and bare
// quotes, CRLF, lone CRs, blank lines, a BOM, multibyte and broken UTF-8, NUL, wrong field
// counts, small limits) cut at random chunk boundaries, src/csv/scanner.ts gives exactly what
// the scanner before them (test/helpers/reference-scanner.ts) gives: bytes out and record ends
// after every chunk, stats, checkpoint, the error and its row, every cell, and the inferred schema;
// and the same for scans resumed from a checkpoint, as a resumable upload's next chunk is.
import { describe, expect, it } from "vitest";
import { CsvScanner, type CellSink, type CsvCheckpoint, type CsvLimits, type CsvMode } from "../src/csv/scanner.ts";
import { ColumnTyper } from "../src/schema/column-typer.ts";
import { scanInChunks } from "./helpers/chunked-scan.ts";
import { ReferenceScanner } from "./helpers/reference-scanner.ts";
import { randomCsv, randomCuts, randomSetup } from "./helpers/random-csv.ts";
import { mulberry32, randomInt, type Random } from "./helpers/random.ts";

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
  const step = (out: Uint8Array) => ({ out: [...out].join("."), recordEnd: scanner.recordEnd, rows: scanner.rowsAtRecordEnd, input: scanner.inputRecordEnd, checkpoint: scanner.checkpoint });
  const { steps, error } = scanInChunks(scanner, bytes, cuts, step, () => ({ stats: scanner.stats, bom: scanner.bomBytes }));
  return { steps, error, cells: sink.events };
}

/** The schema a ColumnTyper infers through each scanner, or the error the scan ends with. */
function inferred(make: (sink: CellSink) => Scanner, bytes: Uint8Array, cuts: number[]): unknown {
  const typer = new ColumnTyper({ kind: "infer", declared: null });
  const { error } = scanInChunks(make(typer), bytes, cuts, () => null, () => null);
  return error ?? typer.schema();
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
