// Skips whole records of stored, already validated CSV bytes without decoding them, so the
// rows endpoint reaches an offset deep inside a segment in one byte loop instead of building
// strings for every cell it passes over.

const LF = 0x0a;
const QUOTE = 0x22;

/**
 * Counts record ends (LF outside quotes; a CRLF ends at its LF) across chunks. Valid for
 * content the scanner accepted: quotes open and close whole fields, `""` inside a quoted
 * field toggles out and straight back in, a lone CR never occurs, and a blank line is a
 * record (scanner.ts), all of which this count agrees with.
 */
export class RecordSkipper {
  private left: number;
  private inQuotes = false;

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
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte === QUOTE) inQuotes = !inQuotes;
      else if (byte === LF && !inQuotes && --this.left === 0) {
        this.inQuotes = false;
        return i + 1;
      }
    }
    this.inQuotes = inQuotes;
    return -1;
  }
}
