// What the encoder tells about the values it writes, so summaries kept beside the file (column
// statistics, docs/statistics.md) come from the encoder's own reading of every cell instead of a
// second cast. Each non-missing cell is reported once: as it is written PLAIN, or, written
// through a dictionary, as its entry's count when the pages using it are cut. Values are the
// ones the file stores: doubles, integers, days (dates), microseconds (times, timestamps); a
// BigInt past ±2^53; text for BYTE_ARRAY columns (a numeric field widened to text included).
export interface ValueSink {
  /** The row group's `count` missing cells: told once per row group, after all its values. */
  nulls(count: number): void;
  number(value: number, count: number): void;
  /**
   * Values[from, to) of a DOUBLE column written PLAIN, once each, read where the encoder holds
   * them: one call a run instead of `number(value, 1)` a value (NaN, infinities and −0 included).
   */
  doubles(values: Float64Array, from: number, to: number): void;
  /** As doubles, for a DATE column's days since 1970-01-01. */
  days(values: Int32Array, from: number, to: number): void;
  /**
   * As doubles, for an INT64 column (integers, times, timestamps): value i is words[2i] (its low
   * 32 bits, unsigned) and words[2i + 1] (its high 32 bits, signed).
   */
  int64s(words: Int32Array, from: number, to: number): void;
  big(value: bigint, count: number): void;
  text(text: string, count: number): void;
  /**
   * Text written PLAIN, once, as the UTF-8 bytes[start, start + length) the page holds for it
   * (valid until pageDone, or a call with another buffer); `text` is its string when the encoder
   * had one, else the sink makes one only if it keeps the text.
   */
  utf8(bytes: Uint8Array, start: number, length: number, text?: string): void;
  /**
   * As utf8, for a cell the encoder keyed (for its dictionary too): src/csv/text-key.ts KEY holds
   * the key hashUtf8 made of the bytes (read it before anything hashes again; lanes are not passed,
   * as in workerd a lane past 2^30 passed to a call is a heap number), `points` are their code
   * points and `units` their UTF-16 code units, so the sink need not read the bytes unless it
   * keeps the text.
   */
  keyedUtf8(bytes: Uint8Array, start: number, length: number, points: number, units: number): void;
  /**
   * The page the bytes of utf8 and keyedUtf8 lay in is about to be written over: a sink that kept
   * where a text lies copies it now. Told at every page cut, so a sink can copy a page's texts
   * together rather than each as it is told.
   */
  pageDone(): void;
  booleans(trues: number, falses: number): void;
  /** The column's timestamps were written converted to UTC (`timestamp-utc`). */
  zoned(): void;
}
