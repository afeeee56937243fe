// The CSV scanner as it was before its fast paths (src/csv/scanner.ts at commit 2c94cc0), kept
// unchanged as the oracle test/csv.fast-path.test.ts holds the scanner to: the same bytes out,
// stats, record ends, checkpoints, errors and cells, for any input cut at any chunk boundaries.

import { BlankRun } from "../../src/csv/blank-run.ts";
import { BomStripper } from "../../src/csv/bom.ts";
import { concat, EMPTY } from "../../src/csv/bytes.ts";
import { CsvError, invalidCsv, LONE_CR, NOT_UTF8, wrongSeparator } from "../../src/csv/csv-error.ts";
import { RecordChecker } from "../../src/csv/record-checker.ts";
import { separatorByte } from "../../src/csv/separator-hint.ts";
import type { CellSink, CsvCheckpoint, CsvLimits, CsvMode, CsvStats } from "../../src/csv/types.ts";
import { Utf8Checker } from "../../src/csv/utf8-checker.ts";

// RFC 4180 §2 delimiters. Declared here rather than imported so the hot loop sees constants.
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

const LINE_START = 0; // before a record, or inside a run of blank lines
const FIELD_START = 1; // after a comma, or at the first byte of a record
const UNQUOTED = 2;
const QUOTED = 3;
const QUOTE_SEEN = 4; // a quote inside a quoted field: closing, or the first of `""`
const AFTER_CR = 5; // a CR ended a record; LF must follow
const BLANK_CR = 6; // a CR began a blank line; LF must follow

/**
 * Bytes that end a run of field content; non-ASCII bytes stop it for the UTF-8 check. A quote
 * does not end unquoted content: there it is a literal character (docs/api.md#writes).
 */
const UNQUOTED_STOP = stopTable([0, LF, CR, COMMA]);
const QUOTED_STOP = stopTable([0, QUOTE]);

/**
 * Validates a CSV upload as it streams and passes its bytes on.
 *
 * Row numbers in errors are 1-based record numbers within the uploaded part: in table mode
 * the header is row 1 and the first data row is row 2; in rows mode the first appended row
 * is row 1. A record may span several lines when a quoted field holds line breaks.
 *
 * A quote opens a quoted field only as the field's first byte; inside an unquoted field it is
 * a literal character (`5'11"`), as in Python's csv module and pandas. After a quoted field's
 * closing quote only a delimiter or a second quote (`""`) may follow.
 *
 * Line ends are CRLF (RFC 4180) or LF. A CR outside quotes that is not followed by LF is
 * invalid_csv: tools disagree on whether it ends a line, so we do not guess. Blank lines at
 * the very end are dropped; the line break ending the last record is kept. A blank line
 * elsewhere is a record of one empty field, so it is valid only in a one-column table, and
 * never before the header (RecordChecker.blankLines).
 *
 * A header read as one unquoted field that holds `;` or tab is refused with the separator
 * named (docs/api.md#writes), as is a `;` or tab right after a closing quote in the first record.
 *
 * Memory held between chunks: the first record's cells (bounded by maxHeaderBytes), up to
 * two bytes of a possible BOM, and a run of blank lines (bounded, see BlankRun).
 *
 * A `CellSink`, when given, receives every data cell as it is scanned (column types, docs/column-types.md);
 * whatever it throws fails the scan like a CSV error.
 *
 * `push` returns the bytes to pass on, often a subarray of its argument (use it before the
 * chunk's buffer is reused). After any error the scanner keeps throwing that error.
 */
export class ReferenceScanner {
  private readonly rec: RecordChecker;
  private readonly utf8 = new Utf8Checker();
  private readonly held = new BlankRun();
  private readonly bom = new BomStripper();
  private state = LINE_START;
  /** Bytes scanned so far, BOM excluded: the absolute offset of the next byte. */
  private consumed = 0;
  private eol: "\n" | "\r\n" | null = null;
  private bytesOut = 0;
  private lastOut = -1;
  private failure: unknown = null;
  private finished = false;
  #recordEnd = -1;
  #rowsAtRecordEnd = 0;
  #checkpoint: CsvCheckpoint | null = null;
  private readonly sink: CellSink | null;
  /** Table mode until the header record has ended: its cells go to `sink.header`. */
  private headerPending: boolean;

  /**
   * `resume`: the input goes on from a checkpoint another scanner reached (no BOM, row numbers
   * continue, the header is behind); the sink must be in its state at that checkpoint.
   */
  constructor(mode: CsvMode, limits: CsvLimits, sink: CellSink | null = null, resume?: CsvCheckpoint) {
    this.rec = new RecordChecker(mode, limits);
    this.sink = sink;
    this.headerPending = mode.kind === "table";
    if (resume) {
      this.rec.resume(resume);
      this.bom.skip();
      this.eol = resume.eol;
      this.lastOut = LF; // what came before ended with a record's line break
      this.#rowsAtRecordEnd = this.rec.dataRows;
      this.#checkpoint = resume;
      this.headerPending = false;
    }
  }

  push(chunk: Uint8Array): Uint8Array {
    return this.guard(() => {
      if (this.bom.decided) return this.scan(chunk, 0);
      const cut = this.bom.next(chunk);
      return cut === null ? EMPTY : this.scan(cut.buf, cut.from);
    });
  }

  /** End of input: runs the final checks and returns any bytes still to pass on. */
  finish(): Uint8Array {
    return this.guard(() => {
      const tail = this.scan(this.bom.rest(), 0);
      this.end();
      this.finished = true;
      return tail;
    });
  }

  /**
   * Offset in the output (all bytes passed on so far, in order) just past the line break of
   * the last record ended, or -1 before any: a place where the output may be cut into parts
   * that each hold whole records. Blank lines are not counted as ends (they may be dropped).
   */
  get recordEnd(): number {
    return this.#recordEnd;
  }

  /** Data rows (the header not counted) that end at or before `recordEnd`. */
  get rowsAtRecordEnd(): number {
    return this.#rowsAtRecordEnd;
  }

  /** Bytes dropped from the start of the input as a BOM: 3 or 0. */
  get bomBytes(): number {
    return this.bom.dropped;
  }

  /** Offset in the input (a dropped BOM included) of `recordEnd`, or -1 before any record end. */
  get inputRecordEnd(): number {
    return this.#recordEnd < 0 ? -1 : this.#recordEnd + this.bom.dropped;
  }

  /** The state at `recordEnd` (or the one resumed from), for a scan that goes on after it. */
  get checkpoint(): CsvCheckpoint | null {
    return this.#checkpoint;
  }

  /** Complete after `finish()`. */
  get stats(): CsvStats {
    const rec = this.rec;
    return {
      header: rec.header,
      firstRow: rec.firstRow,
      columns: rec.columns,
      rows: rec.dataRows,
      bytes: this.bytesOut,
      endsWithNewline: this.lastOut === LF,
      eol: this.eol ?? "\n",
    };
  }

  private guard(step: () => Uint8Array): Uint8Array {
    if (this.failure !== null) throw this.failure;
    if (this.finished) throw new Error("CsvScanner used after finish()");
    try {
      return step();
    } catch (err: unknown) {
      this.failure = err;
      throw err;
    }
  }

  /** Scans `buf[from..]` and returns what of it (plus released blank lines) to pass on. */
  private scan(buf: Uint8Array, from: number): Uint8Array {
    const rec = this.rec;
    const sink = this.sink;
    const end = buf.length;
    const off = this.consumed - from; // absolute offset of buf[0]
    let state = this.state;
    let prior: Uint8Array | null = null;
    let i = from;
    if (this.utf8.need > 0) {
      const j = this.utf8.resume(buf, i, end);
      if (j < 0) throw this.invalid(NOT_UTF8);
      if (rec.collecting) rec.collect(buf, i, j, off + j);
      if (sink !== null) sink.piece(buf, i, j);
      i = j;
    }
    while (i < end) {
      switch (state) {
        case FIELD_START: {
          const b = buf[i]!;
          if (b === COMMA || b === LF || b === CR) {
            state = this.delimit(b, off + i);
            i++;
            break;
          }
          if (b === 0) throw this.invalid("NUL byte");
          if (b === QUOTE) {
            if (rec.collecting) rec.quoted();
            state = QUOTED;
            i++;
          } else {
            state = UNQUOTED;
          }
        }
        // falls through: the field's content starts here
        case UNQUOTED:
        case QUOTED: {
          const stop = state === UNQUOTED ? UNQUOTED_STOP : QUOTED_STOP;
          let j = i;
          for (;;) {
            while (j < end) {
              const c = buf[j]!;
              if ((c > COMMA && c < 0x80) || stop[c] === 0) j++;
              else break;
            }
            if (j === end || buf[j]! < 0x80) break;
            j = this.utf8.sequence(buf, j, end);
            if (j < 0) throw this.invalid(NOT_UTF8);
          }
          if (rec.collecting) rec.collect(buf, i, j, off + j);
          if (sink !== null) sink.piece(buf, i, j);
          i = j;
          if (j === end) break;
          const b = buf[j]!;
          i++;
          if (b === 0) throw this.invalid("NUL byte");
          // Only a quoted field stops at a quote; an unquoted one stops at a delimiter.
          if (b === QUOTE) state = QUOTE_SEEN;
          else state = this.delimit(b, off + j);
          break;
        }
        case QUOTE_SEEN: {
          const b = buf[i]!;
          if (b === QUOTE) {
            if (rec.collecting) rec.collectQuote(off + i + 1);
            if (sink !== null) sink.quote();
            state = QUOTED;
          } else if (b === COMMA || b === LF || b === CR) {
            state = this.delimit(b, off + i);
          } else {
            throw this.afterClosingQuote(b);
          }
          i++;
          break;
        }
        case LINE_START: {
          const b = buf[i]!;
          if (b === LF || b === CR) {
            this.held.begin(i);
            if (b === CR) {
              state = BLANK_CR;
            } else {
              this.held.note(false);
              this.eol ??= "\n";
            }
            i++;
            break;
          }
          if (this.held.holding) {
            // A record follows the held blank lines: they are records too. Only the first
            // release in a buffer can return bytes held from earlier buffers.
            rec.blankLines(this.held.lines, off + i);
            if (sink !== null) sink.blankRecords(this.held.lines);
            prior = this.held.release() ?? prior;
          }
          rec.startRecord(off + i);
          state = FIELD_START;
          break;
        }
        case AFTER_CR:
        case BLANK_CR: {
          if (buf[i] !== LF) {
            // After a record the CR belongs to that record; in a blank line, to the blank line.
            throw this.invalid(LONE_CR, state === AFTER_CR ? rec.records : undefined);
          }
          this.eol ??= "\r\n";
          if (state === BLANK_CR) this.held.note(true);
          else this.markRecordEnd(off + i + 1);
          state = LINE_START;
          i++;
          break;
        }
      }
    }
    this.state = state;
    this.consumed += end - from;
    if (sink !== null) sink.chunkEnd();
    if (state === UNQUOTED || state === QUOTED || state === QUOTE_SEEN) rec.checkOpenField(this.consumed);
    const body = buf.subarray(from, this.held.endBuffer(buf, from));
    return this.emit(prior === null ? body : concat(prior, body));
  }

  /** A comma, LF or CR at `pos` ends the current field; returns the next state. */
  private delimit(b: number, pos: number): number {
    this.rec.endField(pos);
    this.sink?.endField();
    if (b === COMMA) return FIELD_START;
    this.rec.endRecord();
    this.recordEnded();
    if (b === CR) return AFTER_CR;
    this.eol ??= "\n";
    this.markRecordEnd(pos + 1);
    return LINE_START;
  }

  private recordEnded(): void {
    const sink = this.sink;
    if (sink === null) return;
    if (!this.headerPending) return sink.endRecord();
    this.headerPending = false;
    sink.header(this.rec.header ?? []);
  }

  private markRecordEnd(end: number): void {
    const rec = this.rec;
    this.#recordEnd = end;
    this.#rowsAtRecordEnd = rec.dataRows;
    this.#checkpoint = { records: rec.records, header: rec.header, firstRow: rec.firstRow, columns: rec.columns, eol: this.eol };
  }

  private end(): void {
    if (this.utf8.need > 0) throw this.invalid("invalid UTF-8: truncated sequence at end of input");
    switch (this.state) {
      case QUOTED:
        throw this.invalid("unbalanced quotes: end of input inside a quoted field");
      case AFTER_CR:
        throw this.invalid(LONE_CR, this.rec.records);
      case BLANK_CR:
        throw this.invalid(LONE_CR);
      case FIELD_START:
      case UNQUOTED:
      case QUOTE_SEEN:
        this.rec.endField(this.consumed);
        this.sink?.endField();
        this.rec.endRecord();
        this.recordEnded();
        break;
    }
    this.rec.finish();
  }

  private emit(bytes: Uint8Array): Uint8Array {
    if (bytes.length > 0) {
      this.bytesOut += bytes.length;
      this.lastOut = bytes[bytes.length - 1]!;
    }
    return bytes;
  }

  /** `b` follows a closing quote: a `;` or tab there in the first record hints at the separator. */
  private afterClosingQuote(b: number): CsvError {
    const separator = separatorByte(b);
    if (separator !== null && this.rec.records === 0) return wrongSeparator(separator, 1, this.rec.firstRecordName);
    return this.invalid("unbalanced quotes: characters after a closing quote");
  }

  /** invalid_csv at the record being scanned (after any held blank lines) unless `row` is given. */
  private invalid(message: string, row?: number): CsvError {
    return invalidCsv(message, row ?? this.rec.records + this.held.lines + 1);
  }
}

function stopTable(ascii: number[]): Uint8Array {
  const table = new Uint8Array(256).fill(1, 0x80);
  for (const b of ascii) table[b] = 1;
  return table;
}
