// Finds record ends in CSV bytes without validating them, so a producer of the parted gzip
// format (docs/storage-protocol.md, "Upload format") cuts its parts where the server's scanner
// will see a record end. The quoting rules are the scanner's (docs/api.md#writes); a blank line is not a
// record end, since the scanner drops blank lines at the very end of the content.

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

export class RecordEnds {
  private inQuotes = false;
  /** At a field's first byte, or right after a closing quote: a quote here (re)opens quotes. */
  private opensQuote = true;
  /** The line so far holds something other than CR (a blank line does not). */
  private lineHasContent = false;
  /** Bytes scanned so far. */
  private offset = 0;
  #lastEnd = 0;

  /** Offset just past the line break of the last record end scanned (0 before any). */
  get lastEnd(): number {
    return this.#lastEnd;
  }

  /**
   * Scans `bytes[from..]` up to and including the first record end whose offset (just past its
   * LF) is at least `atLeast`; returns that index in `bytes` just past the LF, or -1 after
   * scanning all of it.
   */
  scan(bytes: Uint8Array, from: number, atLeast: number): number {
    let { inQuotes, opensQuote, lineHasContent } = this;
    const base = this.offset - from;
    let found = -1;
    let i = from;
    for (; i < bytes.length; i++) {
      const byte = bytes[i];
      if (inQuotes) {
        if (byte === QUOTE) {
          inQuotes = false;
          opensQuote = true;
        }
        continue;
      }
      if (byte === LF) {
        opensQuote = true;
        if (lineHasContent) {
          lineHasContent = false;
          this.#lastEnd = base + i + 1;
          if (this.#lastEnd >= atLeast) {
            found = i + 1;
            i++;
            break;
          }
        }
        continue;
      }
      if (byte === CR) continue;
      lineHasContent = true;
      if (byte === QUOTE) {
        inQuotes = opensQuote;
        opensQuote = false;
      } else {
        opensQuote = byte === COMMA;
      }
    }
    this.offset = base + i;
    this.inQuotes = inQuotes;
    this.opensQuote = opensQuote;
    this.lineHasContent = lineHasContent || inQuotes;
    return found;
  }
}
