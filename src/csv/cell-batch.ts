// Records as byte ranges of UTF-8 text: what the Parquet part writer reads cells from, so a cell
// becomes a JavaScript string only where a string is what is needed (cell-decoder.ts makes them
// from stored bytes; fromRows from strings, for callers that hold rows of text).

/** Bit 31 of a cell's start: its content holds a doubled quote (still doubled in the bytes). */
export const ESCAPED = 1 << 31;

/**
 * A batch of records. Cell `k` is `cells[4k .. 4k + 3]`: its content's byte start in `bytes`
 * (ESCAPED set when it held a doubled quote), byte end, and UTF-16 start and end in text().
 * Record `r` is cells [ends[r - 1] (`first` for r = 0), ends[r]). A batch made by a decoder is
 * valid until the decoder's next call.
 */
export class CellBatch {
  bytes: Uint8Array;
  cells: Int32Array;
  ends: Int32Array;
  records: number;
  /** The first record's first cell. */
  first = 0;
  #text: string | null;
  readonly #decode: (() => string) | null;

  constructor(bytes: Uint8Array, cells: Int32Array, ends: Int32Array, records: number, text: string | (() => string)) {
    this.bytes = bytes;
    this.cells = cells;
    this.ends = ends;
    this.records = records;
    this.#text = typeof text === "string" ? text : null;
    this.#decode = typeof text === "string" ? null : text;
  }

  /** The text the UTF-16 offsets index, decoded on first use. */
  text(): string {
    return (this.#text ??= this.#decode!());
  }

  /** Cell `k` as a string, doubled quotes undone. */
  cellText(k: number): string {
    const cells = this.cells;
    const text = this.text().slice(cells[4 * k + 2]!, cells[4 * k + 3]!);
    return cells[4 * k]! < 0 ? text.replaceAll('""', '"') : text;
  }

  /** Drops the first record (a header). */
  dropFirst(): void {
    if (this.records === 0) return;
    this.first = this.ends[0]!;
    this.ends = this.ends.subarray(1);
    this.records--;
  }

  /** Cell `c` of record `r` as a string; "" past the end of a short record. */
  cellOf(r: number, c: number): string {
    const k = (r === 0 ? this.first : this.ends[r - 1]!) + c;
    return k < this.ends[r]! ? this.cellText(k) : "";
  }

  /** The records as arrays of strings. */
  rows(from = 0, to = this.records): string[][] {
    const out: string[][] = [];
    for (let r = from; r < to; r++) {
      const first = r === 0 ? this.first : this.ends[r - 1]!;
      const end = this.ends[r]!;
      const row: string[] = new Array<string>(end - first);
      for (let k = first; k < end; k++) row[k - first] = this.cellText(k);
      out.push(row);
    }
    return out;
  }

  /** Rows of cell texts as a batch (their UTF-8 bytes, with the strings kept as its text). */
  static fromRows(rows: readonly (readonly string[])[]): CellBatch {
    let count = 0;
    let units = 0;
    for (const row of rows) {
      count += row.length;
      for (const cell of row) units += cell.length;
    }
    const bytes = new Uint8Array(units * 3 + 16);
    const cells = new Int32Array(4 * count);
    const ends = new Int32Array(rows.length);
    const encoder = new TextEncoder();
    const parts: string[] = [];
    let at = 0;
    let unit = 0;
    let k = 0;
    for (let r = 0; r < rows.length; r++) {
      for (const cell of rows[r]!) {
        const { written } = encoder.encodeInto(cell, bytes.subarray(at));
        cells[4 * k] = at;
        cells[4 * k + 1] = at + written;
        cells[4 * k + 2] = unit;
        cells[4 * k + 3] = unit + cell.length;
        parts.push(cell);
        at += written;
        unit += cell.length;
        k++;
      }
      ends[r] = k;
    }
    return new CellBatch(bytes, cells, ends, rows.length, parts.join(""));
  }
}
