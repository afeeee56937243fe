// Decodes RFC 4180 text into records of string cells, for reading stored content (the JSON
// rows endpoint) and for tests. Uploads are validated by scanner.ts; this decoder follows the
// same conventions and throws invalid_csv on the structural errors it meets.

import { CsvError, invalidCsv } from "./csv-error.ts";

const START = 0; // before a record, or inside a run of blank lines
const FIELD = 1;
const UNQUOTED = 2;
const QUOTED = 3;
const QUOTE_SEEN = 4;
const AFTER_CR = 5;

/**
 * Streaming decoder over text (decode bytes with a streaming TextDecoder first). A leading
 * U+FEFF is dropped; CRLF and LF end records; a quote opens a quoted field only as its first
 * character and is a literal one elsewhere in an unquoted field; a blank line is a record of
 * one empty field, except blank lines at the end, which are dropped (docs/api.md#writes).
 */
export class CsvRecordDecoder {
  private state = START;
  private field = "";
  private record: string[] = [];
  /** Blank lines waiting to learn whether a record follows them. */
  private blank = 0;
  /** Whether the CR being completed belongs to a blank line. */
  private blankCr = false;
  private records = 0;
  private started: boolean;

  /** `midFile`: the text starts at a record boundary inside a file, so a leading U+FEFF is data. */
  constructor(options: { midFile?: boolean } = {}) {
    this.started = options.midFile === true;
  }

  /**
   * Decodes `text` and returns the records it completed. The state, the field and the record are
   * held in locals while the loop runs, and an unquoted field is cut at its delimiter in one scan.
   */
  push(text: string): string[][] {
    const out: string[][] = [];
    const n = text.length;
    let i = 0;
    if (!this.started && n > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    let state = this.state;
    let field = this.field;
    let record = this.record;
    while (i < n) {
      const c = text.charCodeAt(i);
      switch (state) {
        case START:
          if (c === 10) {
            this.blank++;
          } else if (c === 13) {
            state = AFTER_CR;
            this.blankCr = true;
          } else {
            state = FIELD;
            continue;
          }
          i++;
          break;
        case FIELD: {
          if (c === 34) {
            state = QUOTED;
            i++;
            break;
          }
          // A quote inside an unquoted field is a literal character (docs/api.md#writes).
          let j = i;
          let d = c;
          while (d !== 44 && d !== 10 && d !== 13) {
            if (++j === n) break;
            d = text.charCodeAt(j);
          }
          if (j === n) {
            field = text.slice(i, j);
            state = UNQUOTED;
            i = n;
            break;
          }
          record.push(j === i ? "" : text.slice(i, j));
          i = j + 1;
          if (d === 44) break;
          this.records += this.blank + 1;
          for (; this.blank > 0; this.blank--) out.push([""]);
          out.push(record);
          record = [];
          state = d === 13 ? AFTER_CR : START;
          break;
        }
        case UNQUOTED: {
          let j = i;
          while (j < n) {
            const d = text.charCodeAt(j);
            if (d === 44 || d === 10 || d === 13) break;
            j++;
          }
          field += text.slice(i, j);
          i = j;
          if (j === n) break;
          state = this.delimitField(text.charCodeAt(j), field, record, out);
          if (state !== FIELD) record = this.record;
          field = "";
          i++;
          break;
        }
        case QUOTED: {
          const j = text.indexOf('"', i);
          field += text.slice(i, j < 0 ? n : j);
          if (j < 0) {
            i = n;
          } else {
            state = QUOTE_SEEN;
            i = j + 1;
          }
          break;
        }
        case QUOTE_SEEN:
          if (c === 34) {
            field += '"';
            state = QUOTED;
          } else if (c === 44 || c === 10 || c === 13) {
            state = this.delimitField(c, field, record, out);
            if (state !== FIELD) record = this.record;
            field = "";
          } else {
            this.record = record;
            throw this.invalid("unbalanced quotes: characters after a closing quote");
          }
          i++;
          break;
        case AFTER_CR:
          if (c !== 10) {
            this.record = record;
            throw this.invalid("a CR not followed by LF");
          }
          if (this.blankCr) this.blank++;
          this.blankCr = false;
          state = START;
          i++;
          break;
      }
    }
    this.state = state;
    this.field = field;
    this.record = record;
    return out;
  }

  /** End of text: returns the last record if it had no line break; drops trailing blank lines. */
  finish(): string[][] {
    const out: string[][] = [];
    switch (this.state) {
      case QUOTED:
        throw this.invalid("unbalanced quotes: end of input inside a quoted field");
      case AFTER_CR:
        throw this.invalid("a CR not followed by LF");
      case FIELD:
      case UNQUOTED:
      case QUOTE_SEEN:
        this.record.push(this.field);
        this.complete(out);
        break;
    }
    this.state = START;
    this.blank = 0;
    return out;
  }

  /** Ends `field` of `record` at delimiter `c`; returns the state that follows (a completed record starts this.record afresh). */
  private delimitField(c: number, field: string, record: string[], out: string[][]): number {
    record.push(field);
    if (c === 44) return FIELD;
    this.record = record;
    this.complete(out);
    return c === 13 ? AFTER_CR : START;
  }

  private complete(out: string[][]): void {
    this.records += this.blank + 1;
    for (; this.blank > 0; this.blank--) out.push([""]);
    out.push(this.record);
    this.record = [];
  }

  private invalid(message: string): CsvError {
    return invalidCsv(message, this.records + this.blank + 1);
  }
}

/** All records of `text` (RFC 4180 §2), decoded into cells. */
export function parseCsvRecords(text: string): string[][] {
  const decoder = new CsvRecordDecoder();
  const records = decoder.push(text);
  for (const record of decoder.finish()) records.push(record);
  return records;
}
