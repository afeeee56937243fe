// Skips whole records of stored, already validated CSV bytes without decoding them, so the
// rows endpoint reaches an offset deep inside a segment in one byte loop instead of building
// strings for every cell it passes over.

const LF = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Counts record ends (LF outside quotes; a CRLF ends at its LF) across chunks. Valid for
 * content the scanner accepted: a quote opens a quoted field only as the field's first byte
 * (elsewhere in an unquoted field it is a literal, docs/api.md#writes), after a closing quote comes a
 * delimiter or the second quote of `""` (which reopens the field), a lone CR never occurs, and
 * a blank line is a record (scanner.ts), all of which this count agrees with.
 */
export class RecordSkipper {
  private left: number;
  private inQuotes = false;
  /** At a field's first byte, or right after a closing quote: a quote here (re)opens quotes. */
  private opensQuote = true;

  constructor(records: number) {
    this.left = records;
  }

  get done(): boolean {
    return this.left === 0;
  }

  /** Index in `bytes` just past the last record to skip, or -1 when it ends in a later chunk. */
  push(bytes: Uint8Array): number {
    if (this.left === 0) return 0;
    // A plain loop: with a quoted field in most rows it beats indexOf's per-call cost severalfold.
    let inQuotes = this.inQuotes;
    let opensQuote = this.opensQuote;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (inQuotes) {
        if (byte === QUOTE) {
          inQuotes = false;
          opensQuote = true;
        }
      } else if (byte === QUOTE) {
        inQuotes = opensQuote;
        opensQuote = false;
      } else if (byte === COMMA) {
        opensQuote = true;
      } else if (byte === LF) {
        opensQuote = true;
        if (--this.left === 0) {
          this.inQuotes = false;
          this.opensQuote = true;
          return i + 1;
        }
      } else {
        opensQuote = false;
      }
    }
    this.inQuotes = inQuotes;
    this.opensQuote = opensQuote;
    return -1;
  }
}
