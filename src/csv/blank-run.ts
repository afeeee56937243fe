// Blank lines are held back until we know whether a record follows them (then they are rows)
// or the input ends (then they are dropped, docs/api.md#writes). They are kept as run lengths of LF and
// CRLF; a run that must be passed on is bounded (MAX_BLANK_RUN_*), so memory stays bounded.

import { CsvError } from "./csv-error.ts";

const LF = 0x0a;
const CR = 0x0d;

/** How often LF and CRLF may alternate inside one held run before the input is refused. */
export const MAX_BLANK_RUN_SWITCHES = 1024;
/** Most bytes of blank lines in a row before a record (possible only with one column). */
export const MAX_BLANK_RUN_BYTES = 1 << 20;

export class BlankRun {
  /** True from the first byte of a blank line until a record follows. */
  holding = false;
  /** Blank lines held. */
  lines = 0;
  private bytes = 0;
  /** Where the run starts in the buffer being scanned; -1 when it began in an earlier one. */
  private start = -1;
  private lastCrlf: boolean | null = null;
  private switches = 0;
  /** Bytes of the run from earlier chunks: n > 0 is n × "\n", n < 0 is -n × "\r\n". */
  private runs: number[] = [];
  /** A CR stored last whose LF has not been stored yet. */
  private cr = false;

  /** A blank line starts at index `i` of the buffer being scanned. */
  begin(i: number): void {
    if (this.holding) return;
    this.holding = true;
    this.start = i;
  }

  /** Counts one more blank line; refuses a run whose line endings switch too often. */
  note(crlf: boolean): void {
    this.lines++;
    this.bytes += crlf ? 2 : 1;
    if (this.lastCrlf !== null && this.lastCrlf !== crlf && ++this.switches > MAX_BLANK_RUN_SWITCHES) {
      const what = `switches between LF and CRLF more than ${MAX_BLANK_RUN_SWITCHES} times`;
      throw tooLong(what, MAX_BLANK_RUN_SWITCHES);
    }
    this.lastCrlf = crlf;
  }

  /**
   * The scanner reached the end of `buf` (scanned from `from`): keeps the held part, which
   * must outlive the buffer, and returns where the bytes to pass on end.
   */
  endBuffer(buf: Uint8Array, from: number): number {
    if (!this.holding) return buf.length;
    const start = this.start < 0 ? from : this.start;
    this.store(buf, start, buf.length);
    this.start = -1;
    return start;
  }

  /**
   * A record follows the run, so it is passed on after all. Returns the bytes kept from
   * earlier buffers (the part in the current buffer is still there), or null if none.
   */
  release(): Uint8Array | null {
    if (this.bytes > MAX_BLANK_RUN_BYTES) {
      throw tooLong(`is longer than ${MAX_BLANK_RUN_BYTES} bytes`, MAX_BLANK_RUN_BYTES);
    }
    const earlier = this.start < 0 ? this.toBytes() : null;
    this.clear();
    return earlier;
  }

  private store(buf: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      if (buf[i] === CR) {
        this.cr = true;
      } else {
        this.append(this.cr ? -1 : 1);
        this.cr = false;
      }
    }
  }

  /** The stored bytes, exactly as they arrived. */
  private toBytes(): Uint8Array {
    let size = this.cr ? 1 : 0;
    for (const n of this.runs) size += n > 0 ? n : -2 * n;
    const out = new Uint8Array(size);
    let at = 0;
    for (const n of this.runs) {
      if (n > 0) {
        out.fill(LF, at, at + n);
        at += n;
      } else {
        for (let k = 0; k < -n; k++) {
          out[at++] = CR;
          out[at++] = LF;
        }
      }
    }
    if (this.cr) out[at] = CR;
    return out;
  }

  private clear(): void {
    this.holding = false;
    this.start = -1;
    this.lines = 0;
    this.bytes = 0;
    this.lastCrlf = null;
    this.switches = 0;
    this.runs = [];
    this.cr = false;
  }

  private append(step: 1 | -1): void {
    const last = this.runs.length - 1;
    const n = this.runs[last];
    if (n !== undefined && n > 0 === step > 0) this.runs[last] = n + step;
    else this.runs.push(step);
  }
}

function tooLong(what: string, max: number): CsvError {
  return new CsvError("csv_limit_exceeded", `a run of blank lines ${what}`, { limit: "blankLineRun", max });
}
