// One column chunk of a row group being built: definition levels, values in pages of at most
// PAGE_ROWS rows or about PAGE_BYTES, each page's bounds, a dictionary while it pays, Snappy on
// every page. The typed columns (int64-column.ts, numeric-columns.ts, text-columns.ts) read cells
// into values; this class owns pages, dictionary and layout.
// https://github.com/apache/parquet-format/blob/master/README.md#data-pages
import type { CellBatch } from "../../csv/cell-batch.ts";
import { hashUtf8, KEY } from "../../csv/text-key.ts";
import { ByteBuffer } from "./byte-buffer.ts";
import { dataPageHeader, dictionaryPageHeader, ENCODING } from "./page-header.ts";
import type { ColumnKind } from "./column-kinds.ts";
import type { ChunkMeta } from "./part-metadata.ts";
import { bitWidth, encodeHybrid, encodeLevels } from "./rle-hybrid.ts";
import { snappyCompress } from "./snappy.ts";

/**
 * Values (before encoding) per page at most, about: small enough that a reader decompresses
 * little for a few rows, large enough to compress (docs/queries.md#cost).
 */
export const PAGE_BYTES = 1 << 16;
/**
 * Rows per page at most. A page is what a reader skips with the page index (its column index
 * and offset index), so a query matching a few rows decodes about a thousand of each column.
 * Readers take each page's rows from its header and the offset index, never from this bound, so
 * twins written with other bounds (8,192 rows and 1 MiB before) read the same.
 */
export const PAGE_ROWS = 1024;
/** A dictionary stops growing here and the rest of the chunk is PLAIN. */
export const DICTIONARY_MAX_ENTRIES = 1 << 16;
export const DICTIONARY_MAX_BYTES = 1 << 20;
/**
 * Values a chunk's dictionary is tried on before it is kept for the rest of the chunk: it is kept
 * while at most half of them are distinct. The first page alone decides only for a column whose
 * values are nearly all distinct there (TRIAL_FIRST_PAGE_DISTINCT), which it rewrites PLAIN; a
 * page of 1,024 rows is too few to tell a date column of a few thousand values from a unique id.
 */
export const TRIAL_VALUES = 4096;
const TRIAL_FIRST_PAGE_DISTINCT = 0.9;
/** Row groups a column whose dictionary failed its trial goes without one before trying again. */
const SKIPPED_TRIALS = 4;

const body = new ByteBuffer(1 << 16);

/** The bits of a text's key entryOf's table is indexed by: a small integer, never a heap number. */
export const ENTRY_HASH_BITS = 0x3fffffff;

export interface Bounds {
  min: Uint8Array;
  max: Uint8Array;
}

/**
 * What a typed column tells its chunk of each page's values when the page is cut, for the
 * column index (https://github.com/apache/parquet-format/blob/master/PageIndex.md).
 */
export interface PageBounds {
  /** Min/max of the values noted since the last call (PLAIN values, new dictionary entries), now counted in the chunk's; null when none. */
  takePageBounds(): Bounds | null;
  /** Min/max of dictionary entries, given by the first `count` of `keys` (as slot() received them); null when they have no bounds (only NaN). */
  entryBounds(keys: readonly (string | number)[], count: number): Bounds | null;
}

/**
 * Pages, dictionary and layout of one column chunk. One class for every kind, so the hot path's
 * loads stay monomorphic: a typed column (int64-column.ts, numeric-columns.ts, text-columns.ts)
 * asks slot() where to write a value, writes it PLAIN, then calls placed().
 */
export class ColumnChunk {
  private levels = new Uint8Array(256);
  private rowsInPage = 0;
  private nullsInPage = 0;
  private pageValueBytes = 0;
  private readonly values = new ByteBuffer(256);
  /** The chunk's dictionary while values go through it; null once PLAIN (or for a kind without one). */
  dict: Map<string | number, number> | null;
  private readonly dictValues = new ByteBuffer(256);
  private entryStarts: number[] = [];
  /** Each dictionary entry's key, by index: what a dictionary page's bounds are computed from. */
  private entryKeys: (string | number)[] = [];
  private seen = new Uint8Array(256);
  /** The keys of the entries a page uses (indexedBounds), the first of them valid: one array reused page after page. */
  private readonly pageKeys: (string | number)[] = [];
  /** entryOf's table: entry index + 1 by hash slot, 0 empty; entries [0, indexed) are in it. */
  private entryTable = new Int32Array(64);
  private indexed = 0;
  private indices = new Int32Array(256);
  private indexCount = 0;
  private dictPages = 0;
  private plainPages = 0;
  private pages: Uint8Array[] = [];
  private pageOffsets: number[] = [];
  private pageSizes: number[] = [];
  private pageFirstRows: number[] = [];
  private pageNulls: number[] = [];
  private pageMins: (Uint8Array | null)[] = [];
  private pageMaxs: (Uint8Array | null)[] = [];
  private dataBytes = 0;
  private uncompressedBytes = 0;
  private rows = 0;
  private nulls = 0;
  private present = 0;
  private readonly useDictionary: boolean;
  /** Row groups left to write PLAIN before trying a dictionary again. */
  private skipTrials = 0;
  /** The dictionary's trial is over for this chunk (kept, dropped or stopped). */
  private trialDone = false;
  /** This chunk's dictionary failed its trial. */
  private trialFailed = false;
  /** BOOLEAN values: one byte each in `values`, bit-packed when the page is cut. */
  private readonly bitPacked: boolean;
  /**
   * Given each dictionary entry (its key) with the count of its cells in the pages cut since the
   * last report, when the dictionary ends (the chunk is finished, the dictionary full or dropped):
   * how a value sink (value-sink.ts) hears of dictionary-encoded cells. Null: nobody listens.
   */
  entrySink: ((key: string | number, count: number) => void) | null = null;
  private entryCounts = new Int32Array(256);

  private readonly bounds: PageBounds;
  /** Rows at which a page is cut. */
  pageRows = PAGE_ROWS;
  /** Values' PLAIN bytes at which a page is cut. */
  pageBytes = PAGE_BYTES;

  constructor(bounds: PageBounds, useDictionary: boolean, bitPacked = false) {
    this.bounds = bounds;
    this.useDictionary = useDictionary;
    this.bitPacked = bitPacked;
    this.dict = useDictionary ? new Map() : null;
    this.trialDone = !useDictionary;
  }

  /** Bytes this chunk holds in memory, for the row group's size bound. */
  bufferedBytes(): number {
    return this.dataBytes + this.pageValueBytes + this.dictValues.length;
  }

  addNull(): void {
    if (this.rowsInPage === this.levels.length) this.growLevels();
    this.levels[this.rowsInPage++] = 0;
    this.nullsInPage++;
    if (this.rowsInPage >= this.pageRows) this.cutPage();
  }

  private growLevels(): void {
    const grown = new Uint8Array(this.levels.length * 2);
    grown.set(this.levels);
    this.levels = grown;
  }

  /**
   * Where to write the next value (identified by `key` in the dictionary), PLAIN-encoded: the
   * dictionary for a new entry, the page otherwise; null when the dictionary already holds it.
   * The caller writes the value, counts it in its statistics, then calls placed().
   */
  slot(key: string | number): ByteBuffer | null {
    const dict = this.dict;
    if (dict === null) return this.values;
    let index = dict.get(key);
    if (index === undefined) {
      index = dict.size;
      if (index >= DICTIONARY_MAX_ENTRIES || this.dictValues.length >= DICTIONARY_MAX_BYTES) {
        this.stopDictionary();
        return this.values;
      }
      dict.set(key, index);
      this.entryStarts.push(this.dictValues.length);
      this.entryKeys.push(key);
      this.pushIndex(index);
      return this.dictValues;
    }
    this.pushIndex(index);
    return null;
  }

  /**
   * The index of the dictionary entry whose PLAIN value is the length-prefixed bytes [start, end)
   * (a BYTE_ARRAY chunk's text as UTF-8), or -1: text is looked up by its bytes, with no string
   * made for a value the dictionary holds. `hash` is (high ^ low) & ENTRY_HASH_BITS of the bytes'
   * key as src/csv/text-key.ts hashUtf8 makes it (the one the statistics count the text by), so
   * nothing is hashed here. An open-addressing table over the entries' bytes in dictValues, brought up to
   * date with the entries slot() added since the last call.
   */
  entryOf(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const starts = this.entryStarts;
    const count = starts.length;
    if (count > this.indexed) this.indexEntries(count);
    const table = this.entryTable;
    const mask = table.length - 1;
    const values = this.dictValues.bytes;
    const n = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot]! - 1;
      if (entry < 0) return -1;
      const at = starts[entry]! + 4;
      const to = entry + 1 < count ? starts[entry + 1]! : this.dictValues.length;
      if (to - at !== n) continue;
      let i = 0;
      while (i < n && values[at + i] === bytes[start + i]) i++;
      if (i === n) return entry;
    }
  }

  /** Adds entries [this.indexed, count) to entryTable, grown to keep it at most half full. */
  private indexEntries(count: number): void {
    if (count * 2 > this.entryTable.length) {
      let size = this.entryTable.length;
      while (count * 2 > size) size *= 2;
      this.entryTable = new Int32Array(size);
      this.indexed = 0;
    }
    const table = this.entryTable;
    const mask = table.length - 1;
    const starts = this.entryStarts;
    const values = this.dictValues.bytes;
    for (let entry = this.indexed; entry < count; entry++) {
      const at = starts[entry]! + 4;
      const to = entry + 1 < starts.length ? starts[entry + 1]! : this.dictValues.length;
      hashUtf8(values, at, to - at);
      let slot = (KEY[0]! ^ KEY[1]!) & ENTRY_HASH_BITS & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = entry + 1;
    }
    this.indexed = count;
  }

  /** Forgets the entries' table (the dictionary starts afresh). */
  private clearEntryTable(): void {
    if (this.indexed > 0) this.entryTable.fill(0);
    this.indexed = 0;
  }

  /** The next value is dictionary entry `index` (found by entryOf); the caller then calls placed(). */
  reuse(index: number): void {
    this.pushIndex(index);
  }

  private pushIndex(index: number): void {
    if (this.indexCount === this.indices.length) {
      const grown = new Int32Array(this.indices.length * 2);
      grown.set(this.indices);
      this.indices = grown;
    }
    this.indices[this.indexCount++] = index;
  }

  /** Ends the value slot() began; `size` is its PLAIN size. */
  placed(size: number): void {
    if (this.rowsInPage === this.levels.length) this.growLevels();
    this.levels[this.rowsInPage++] = 1;
    this.present++;
    this.pageValueBytes += size;
    if (this.pageValueBytes >= this.pageBytes || this.rowsInPage >= this.pageRows) this.cutPage();
  }

  /**
   * Where rows `levels[from, to)` (1 a value, 0 a null) stop filling the page being written, for a
   * chunk without a dictionary whose values are `size` bytes each: the page is cut after the row
   * that reaches pageRows, or after the value that reaches pageBytes, as placed() and addNull() cut it.
   */
  runEnd(levels: Uint8Array, from: number, to: number, size: number): number {
    const end = Math.min(to, from + this.pageRows - this.rowsInPage);
    const room = Math.ceil((this.pageBytes - this.pageValueBytes) / size);
    if (end - from > room) {
      let seen = 0;
      for (let i = from; i < end; i++) if (levels[i] === 1 && ++seen === room) return i + 1;
    }
    return end;
  }

  /**
   * Rows `levels[from, end)` (end from runEnd) whose `count` values are PLAIN at `values[at, at +
   * count * size)`, for a chunk without a dictionary: as addNull() and slot() then placed() for
   * each row, the typed column having noted the values' bounds first.
   */
  appendRun(levels: Uint8Array, from: number, end: number, values: Uint8Array, at: number, count: number, size: number): void {
    const rows = end - from;
    while (this.rowsInPage + rows > this.levels.length) this.growLevels();
    this.levels.set(levels.subarray(from, end), this.rowsInPage);
    this.rowsInPage += rows;
    this.nullsInPage += rows - count;
    this.present += count;
    this.pageValueBytes += count * size;
    this.values.write(values.subarray(at, at + count * size));
    if (this.pageValueBytes >= this.pageBytes || this.rowsInPage >= this.pageRows) this.cutPage();
  }

  /**
   * Rows `levels[from, to)` (1 a value, 0 a null) of a chunk with a dictionary, whose values' keys
   * are `keys[at]`, `keys[at + step]`… in turn: a null as addNull() writes it, a value the
   * dictionary holds as slot() and placed(size) write it (its index). Stops at a value the
   * dictionary does not hold, or whose key is at or past `keyEnd`, and returns its row; or returns
   * the row after a page cut that ended the dictionary; else `to`.
   */
  dictRun(levels: Uint8Array, from: number, to: number, keys: Float64Array | Int32Array, at: number, keyEnd: number, step: number, size: number): number {
    const dict = this.dict!;
    let key = at;
    for (let r = from; r < to; r++) {
      if (this.rowsInPage === this.levels.length) this.growLevels();
      if (levels[r] === 0) {
        this.levels[this.rowsInPage++] = 0;
        this.nullsInPage++;
      } else {
        if (key >= keyEnd) return r;
        const index = dict.get(keys[key]!);
        if (index === undefined) return r;
        key += step;
        this.pushIndex(index);
        this.levels[this.rowsInPage++] = 1;
        this.present++;
        this.pageValueBytes += size;
      }
      if (this.pageValueBytes >= this.pageBytes || this.rowsInPage >= this.pageRows) {
        this.cutPage();
        if (this.dict === null) return r + 1;
      }
    }
    return to;
  }

  /** The dictionary is full: the page so far keeps it, the rest of the chunk is PLAIN. */
  private stopDictionary(): void {
    if (this.rowsInPage > 0) this.cutPage();
    this.reportEntries();
    this.dict = null;
  }

  /** Counts the current page's dictionary indices per entry, for entrySink. */
  private countIndices(): void {
    if (this.entrySink === null) return;
    if (this.entryCounts.length < this.dict!.size) {
      const grown = new Int32Array(Math.max(this.dict!.size, this.entryCounts.length * 2));
      grown.set(this.entryCounts);
      this.entryCounts = grown;
    }
    const counts = this.entryCounts;
    const indices = this.indices;
    for (let i = 0; i < this.indexCount; i++) counts[indices[i]!]!++;
  }

  /** Tells entrySink each entry's count since the last report, and starts the counts afresh. */
  private reportEntries(): void {
    const sink = this.entrySink;
    if (sink === null || this.dict === null) return;
    const counts = this.entryCounts;
    let index = 0;
    for (const key of this.dict.keys()) {
      const count = counts[index]!;
      if (count > 0) {
        sink(key, count);
        counts[index] = 0;
      }
      index++;
    }
  }

  /** No page used the dictionary yet and it saves nothing: rewrite the page's values PLAIN. */
  private dropDictionary(): void {
    this.countIndices();
    this.reportEntries();
    const bytes = this.dictValues.bytes;
    const starts = this.entryStarts;
    const end = this.dictValues.length;
    for (let i = 0; i < this.indexCount; i++) {
      const index = this.indices[i]!;
      this.values.write(bytes.subarray(starts[index]!, index + 1 < starts.length ? starts[index + 1]! : end));
    }
    this.dict = null;
    this.dictValues.reset();
    this.entryStarts = [];
    this.clearEntryTable();
    this.entryKeys = [];
    this.indexCount = 0;
  }

  /** The page's PLAIN values: as written, or bit-packed (least significant bit first) for booleans. */
  private pageValues(out: ByteBuffer): void {
    if (!this.bitPacked) {
      out.write(this.values.filled());
      return;
    }
    const bits = this.values.bytes;
    const n = this.values.length;
    out.reserve((n + 7) >> 3);
    for (let i = 0; i < n; i += 8) {
      let byte = 0;
      for (let k = 0; k < 8 && i + k < n; k++) byte |= bits[i + k]! << k;
      out.bytes[out.length++] = byte;
    }
  }

  /** Bounds of the dictionary entries the current page's indices use. */
  private indexedBounds(): Bounds | null {
    const size = this.dict!.size;
    if (this.seen.length < size) this.seen = new Uint8Array(Math.max(size, this.seen.length * 2));
    const seen = this.seen;
    seen.fill(0, 0, size);
    const keys = this.pageKeys;
    let count = 0;
    for (let i = 0; i < this.indexCount; i++) {
      const index = this.indices[i]!;
      if (seen[index] === 0) {
        seen[index] = 1;
        keys[count++] = this.entryKeys[index]!;
      }
    }
    return this.bounds.entryBounds(keys, count);
  }

  private cutPage(last = false): void {
    // A first page of nearly all distinct values drops the dictionary before any page uses it; so
    // does a first page holding more than half its values distinct when it is the whole trial
    // (the chunk's only page, or a page of TRIAL_VALUES values or more).
    const distinctBound = last || this.present >= TRIAL_VALUES ? 0.5 : TRIAL_FIRST_PAGE_DISTINCT;
    if (this.dict !== null && this.pages.length === 0 && this.dict.size > this.present * distinctBound) {
      this.dropDictionary();
      this.trialDone = this.trialFailed = true;
    }
    const rows = this.rowsInPage;
    body.reset();
    encodeLevels(body, this.levels, rows, this.nullsInPage);
    let encoding: number = ENCODING.PLAIN;
    let bounds = this.bounds.takePageBounds();
    if (this.dict !== null && this.indexCount > 0) {
      const width = bitWidth(this.dict.size - 1);
      bounds = this.indexedBounds();
      this.countIndices();
      body.u8(width);
      encodeHybrid(body, this.indices, this.indexCount, width);
      encoding = ENCODING.RLE_DICTIONARY;
      this.dictPages++;
    } else {
      this.pageValues(body);
      this.plainPages++;
    }
    const compressed = snappyCompress(body.filled());
    const header = dataPageHeader(body.length, compressed.length, rows, encoding);
    this.pageOffsets.push(this.dataBytes);
    this.pageSizes.push(header.length + compressed.length);
    this.pageFirstRows.push(this.rows);
    this.pageNulls.push(this.nullsInPage);
    this.pageMins.push(bounds?.min ?? null);
    this.pageMaxs.push(bounds?.max ?? null);
    this.pages.push(header, compressed);
    this.dataBytes += header.length + compressed.length;
    this.uncompressedBytes += header.length + body.length;
    this.rows += rows;
    this.nulls += this.nullsInPage;
    this.rowsInPage = 0;
    this.nullsInPage = 0;
    this.indexCount = 0;
    this.pageValueBytes = 0;
    this.values.reset();
    if (!this.trialDone && this.present >= TRIAL_VALUES) this.endTrial();
  }

  /**
   * TRIAL_VALUES values have been written: a dictionary holding more than half of them distinct
   * saves little, so the pages so far keep it and the rest of the chunk is PLAIN.
   */
  private endTrial(): void {
    this.trialDone = true;
    if (this.dict === null || this.dict.size * 2 <= this.present) return;
    this.trialFailed = true;
    this.reportEntries();
    this.dict = null;
  }

  /**
   * Ends the chunk: its bytes in file order and its metadata (offsets relative to the chunk); then
   * starts afresh. `statistics` gives the chunk's min/max once its last page is cut.
   */
  finish(statistics: () => Bounds | null): { bytes: Uint8Array[]; meta: ChunkMeta } {
    if (this.rowsInPage > 0 || this.pages.length === 0) this.cutPage(true);
    this.reportEntries();
    const stats = statistics();
    const bytes: Uint8Array[] = [];
    let shift = 0;
    let uncompressed = this.uncompressedBytes;
    if (this.dictPages > 0) {
      const compressed = snappyCompress(this.dictValues.filled());
      const header = dictionaryPageHeader(this.dictValues.length, compressed.length, this.entryStarts.length);
      bytes.push(header, compressed);
      shift = header.length + compressed.length;
      uncompressed += header.length + this.dictValues.length;
    }
    for (const page of this.pages) bytes.push(page);
    const encodings: number[] = [];
    if (this.plainPages > 0 || this.dictPages > 0) encodings.push(ENCODING.PLAIN);
    encodings.push(ENCODING.RLE);
    if (this.dictPages > 0) encodings.push(ENCODING.RLE_DICTIONARY);
    const meta: ChunkMeta = {
      offset: 0,
      compressed: shift + this.dataBytes,
      uncompressed,
      values: this.rows,
      nulls: this.nulls,
      dictionary: this.dictPages > 0,
      encodings,
      min: stats?.min ?? null,
      max: stats?.max ?? null,
      pageOffsets: this.pageOffsets.map((offset) => offset + shift),
      pageSizes: this.pageSizes,
      pageFirstRows: this.pageFirstRows,
      pageIndex: { nulls: this.pageNulls, mins: this.pageMins, maxs: this.pageMaxs },
      instantDigits: null,
    };
    this.restart();
    return { bytes, meta };
  }

  private restart(): void {
    // A dictionary that failed its trial in this row group is not tried again in the next few: the column's values are mostly distinct.
    if (this.trialFailed) this.skipTrials = SKIPPED_TRIALS;
    this.dict = this.useDictionary && this.skipTrials-- <= 0 ? new Map() : null;
    this.trialDone = this.dict === null;
    this.trialFailed = false;
    this.dictValues.reset();
    this.entryStarts = [];
    this.clearEntryTable();
    this.entryKeys = [];
    this.dictPages = 0;
    this.plainPages = 0;
    this.pages = [];
    this.pageOffsets = [];
    this.pageSizes = [];
    this.pageFirstRows = [];
    this.pageNulls = [];
    this.pageMins = [];
    this.pageMaxs = [];
    this.dataBytes = 0;
    this.uncompressedBytes = 0;
    this.rows = 0;
    this.nulls = 0;
    this.present = 0;
  }
}

/** A column of one kind: reads cells into its chunk and keeps each page's and the chunk's min/max. */
export interface TypedColumn extends PageBounds {
  /** The kind being written; a `timestamp` column becomes utc or local at its first value. */
  kind: ColumnKind;
  readonly chunk: ColumnChunk;
  /** Adds a cell that is not missing; undefined when written, else the kind it needs (nothing written). */
  add(text: string): ColumnKind | undefined;
  /**
   * Adds cell `c` of each of records [from, to) of `batch`, a missing cell (in `missing`, or
   * empty when that is null) as a null: read from its bytes where the kind has a byte reader
   * (cell-values.ts) and the cell needs no castCell and held no doubled quote, else from its
   * text through add. Returns the cells' text length (UTF-16 code units), or -1 at a cell that
   * needs a wider kind, which is then in `need`.
   */
  addCells(batch: CellBatch, c: number, from: number, to: number, missing: ReadonlySet<string> | null): number;
  need: ColumnKind | undefined;
  /** The chunk's statistics (its pages' bounds merged), then forgotten for the next row group. */
  takeStatistics(): Bounds | null;
  /** ChunkMeta.instantDigits of the chunk, then forgotten for the next row group. */
  takeDigits(): number | null;
}
