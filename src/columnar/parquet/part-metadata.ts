// What a part's footer entries need, kept beside the part so a version's tail is written from
// metadata alone: per row group, per column chunk, sizes, offsets relative to the part's first
// byte, encodings, statistics and page locations. Serialized as versioned JSON with positional
// arrays (a 4,000-column row group stays small); decodePartHead refuses other versions. Since
// version 3 the part's head holds each chunk without its pages; each row group's pages (offset
// index and column index) are a JSON document of their own, stored apart and read only by a
// query that needs that row group's pages (docs/columnar.md "Part metadata").
import { COLUMN_KINDS, type ColumnKind } from "./column-kinds.ts";

export interface ChunkMeta {
  /** Where the chunk's first page starts, relative to the part (to the chunk while it is being built). */
  offset: number;
  /** Byte length of the chunk: page headers and compressed pages. */
  compressed: number;
  /** Byte length with every page uncompressed (headers included). */
  uncompressed: number;
  /** Rows of the chunk (num_values: the column is flat, so nulls count). */
  values: number;
  nulls: number;
  /** Whether the chunk opens with a dictionary page (then its data pages follow it). */
  dictionary: boolean;
  /** parquet.thrift `Encoding` values used by the chunk. */
  encodings: number[];
  /** Statistics in Parquet's binary form (plain encoding; unsigned byte order for text), null when no value. */
  min: Uint8Array | null;
  max: Uint8Array | null;
  /** Data pages: offset relative to the chunk, byte length with header, first row within the row group. */
  pageOffsets: number[];
  pageSizes: number[];
  pageFirstRows: number[];
  /** Per data page: nulls and min/max (null: no value, or none that bounds it); null for a part written before pages had them. */
  pageIndex: PageIndexMeta | null;
  /**
   * A time or timestamp chunk whose every value was written in the form it reads back as
   * (instant-text.ts): that form's fraction digits. Null otherwise, and for other kinds.
   */
  instantDigits: number | null;
}

export interface PageIndexMeta {
  nulls: number[];
  mins: (Uint8Array | null)[];
  maxs: (Uint8Array | null)[];
}

/** A chunk's pages: where each starts, its size, its first row, and its bounds. */
export type ChunkPages = Pick<ChunkMeta, "pageOffsets" | "pageSizes" | "pageFirstRows" | "pageIndex">;
/** A chunk as a part's head gives it: everything but its pages. */
export type ChunkHead = Omit<ChunkMeta, keyof ChunkPages>;

export interface RowGroupMeta {
  rows: number;
  columns: ChunkMeta[];
}

export interface PartMetadata {
  /** Kinds the part was encoded with, one per column. */
  kinds: ColumnKind[];
  rows: number;
  /** Byte length of the part. */
  byteLength: number;
  rowGroups: RowGroupMeta[];
}

/** Bytes `offset` up to `offset + length` of the pages a part stores after its head and summary. */
export interface PagesAt {
  offset: number;
  length: number;
}

export interface RowGroupHead {
  rows: number;
  columns: ChunkHead[];
  /** Its chunks' pages: here when the head held them (versions 1 and 2), else where they are stored. */
  pages: ChunkPages[] | PagesAt;
}

export interface PartHead {
  kinds: ColumnKind[];
  rows: number;
  byteLength: number;
  rowGroups: RowGroupHead[];
}

/** What a part stores: the head, then (after the part's summary) each row group's pages, one after another. */
export interface StoredPartMetadata {
  head: string;
  pages: string;
}

export const PART_METADATA_VERSION = 3;
/** Version 1 had no page bounds (its chunks get no column index); version 2 kept the pages in the head. */
const READABLE_VERSIONS: readonly unknown[] = [1, 2, PART_METADATA_VERSION];

function base64(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function unbase64(text: unknown): Uint8Array | null {
  if (text === null) return null;
  if (typeof text !== "string") throw new Error("part metadata: statistics must be base64 text");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

type PageIndexTuple = [number[], (string | null)[], (string | null)[]];
type HeadTuple = [number, number, number, number, number, 0 | 1, number[], string | null, string | null, number | null];
type PagesTuple = [number[], number[], number[], PageIndexTuple | null];

/**
 * The head `{"v":3,"kinds":[…],"rows":N,"bytes":N,"groups":[[rows,[chunk…],[offset,length]]…]}`
 * and the pages, each row group's `[[offsets,sizes,firstRows,[nulls,mins,maxs]|null]…]` at
 * `offset` of them. Both are ASCII (base64 bounds), so a character is a byte.
 */
export function encodePartMetadata(meta: PartMetadata): StoredPartMetadata {
  let pages = "";
  const groups = meta.rowGroups.map((group) => {
    const text = JSON.stringify(
      group.columns.map((c): PagesTuple => [c.pageOffsets, c.pageSizes, c.pageFirstRows, c.pageIndex && [c.pageIndex.nulls, c.pageIndex.mins.map(base64), c.pageIndex.maxs.map(base64)]]),
    );
    const at = [pages.length, text.length];
    pages += text;
    return [group.rows, group.columns.map((c): HeadTuple => [c.offset, c.compressed, c.uncompressed, c.values, c.nulls, c.dictionary ? 1 : 0, c.encodings, base64(c.min), base64(c.max), c.instantDigits]), at];
  });
  return { head: JSON.stringify({ v: PART_METADATA_VERSION, kinds: meta.kinds, rows: meta.rows, bytes: meta.byteLength, groups }), pages };
}

function numbers(value: unknown): number[] {
  if (!Array.isArray(value) || !value.every((n) => Number.isSafeInteger(n))) throw new Error("part metadata: expected a list of integers");
  return value as number[];
}

function integer(value: unknown): number {
  if (!Number.isSafeInteger(value)) throw new Error("part metadata: expected an integer");
  return value as number;
}

function digits(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 6) throw new Error("part metadata: bad fraction digits");
  return value as number;
}

function pageIndex(value: unknown, pages: number): PageIndexMeta | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length !== 3 || !Array.isArray(value[1]) || !Array.isArray(value[2])) throw new Error("part metadata: bad page index");
  const nulls = numbers(value[0]);
  const mins = (value[1] as unknown[]).map(unbase64);
  const maxs = (value[2] as unknown[]).map(unbase64);
  if (nulls.length !== pages || mins.length !== pages || maxs.length !== pages) throw new Error("part metadata: page index of another page count");
  return { nulls, mins, maxs };
}

function chunkHead(t: unknown[], instantAt: number): ChunkHead {
  return {
    offset: integer(t[0]),
    compressed: integer(t[1]),
    uncompressed: integer(t[2]),
    values: integer(t[3]),
    nulls: integer(t[4]),
    dictionary: t[5] === 1,
    encodings: numbers(t[6]),
    min: unbase64(t[7]),
    max: unbase64(t[8]),
    instantDigits: digits(t[instantAt]),
  };
}

function chunkPages(offsets: unknown, sizes: unknown, firstRows: unknown, index: unknown): ChunkPages {
  const pageOffsets = numbers(offsets);
  const pageSizes = numbers(sizes);
  const pageFirstRows = numbers(firstRows);
  if (pageSizes.length !== pageOffsets.length || pageFirstRows.length !== pageOffsets.length) throw new Error("part metadata: pages of another count");
  return { pageOffsets, pageSizes, pageFirstRows, pageIndex: pageIndex(index, pageOffsets.length) };
}

/** Reads a part's head (this version or the two before); throws on another version or a malformed document. */
export function decodePartHead(text: string): PartHead {
  const doc = JSON.parse(text) as { v?: unknown; kinds?: unknown; rows?: unknown; bytes?: unknown; groups?: unknown };
  if (!READABLE_VERSIONS.includes(doc.v)) throw new Error(`part metadata: version ${String(doc.v)} is not ${PART_METADATA_VERSION}`);
  if (!Array.isArray(doc.kinds) || !doc.kinds.every((k) => (COLUMN_KINDS as readonly unknown[]).includes(k))) throw new Error("part metadata: bad kinds");
  if (!Array.isArray(doc.groups)) throw new Error("part metadata: bad row groups");
  const width = doc.kinds.length;
  const rowGroups = doc.groups.map((group: unknown): RowGroupHead => {
    if (!Array.isArray(group) || !Array.isArray(group[1]) || group[1].length !== width) throw new Error("part metadata: bad row group");
    const tuples = group[1] as unknown[];
    if (doc.v === PART_METADATA_VERSION) {
      const at = numbers(group[2]);
      if (at.length !== 2) throw new Error("part metadata: bad pages location");
      const columns = tuples.map((tuple) => {
        if (!Array.isArray(tuple) || tuple.length !== 10) throw new Error("part metadata: bad column chunk");
        return chunkHead(tuple as unknown[], 9);
      });
      return { rows: integer(group[0]), columns, pages: { offset: at[0]!, length: at[1]! } };
    }
    // Version 2 chunks written before instantDigits have 13 entries; version 1 chunks, 12.
    const columns: ChunkHead[] = [];
    const pages: ChunkPages[] = [];
    for (const tuple of tuples) {
      if (!Array.isArray(tuple) || (doc.v === 1 ? tuple.length !== 12 : tuple.length !== 13 && tuple.length !== 14)) throw new Error("part metadata: bad column chunk");
      const t = tuple as unknown[];
      columns.push(chunkHead(t, 13));
      pages.push(chunkPages(t[9], t[10], t[11], t[12]));
    }
    return { rows: integer(group[0]), columns, pages };
  });
  return { kinds: doc.kinds as ColumnKind[], rows: integer(doc.rows), byteLength: integer(doc.bytes), rowGroups };
}

/** Reads one row group's pages, as encodePartMetadata stored them, for a row group of `width` columns. */
export function decodeGroupPages(text: string, width: number): ChunkPages[] {
  const doc = JSON.parse(text) as unknown;
  if (!Array.isArray(doc) || doc.length !== width) throw new Error("part metadata: pages of another width");
  return doc.map((tuple: unknown) => {
    if (!Array.isArray(tuple) || tuple.length !== 4) throw new Error("part metadata: bad chunk pages");
    return chunkPages(tuple[0], tuple[1], tuple[2], tuple[3]);
  });
}

/** A row group's chunks whole, given its pages. */
export function joinChunks(columns: readonly ChunkHead[], pages: readonly ChunkPages[]): ChunkMeta[] {
  return columns.map((chunk, c) => ({ ...chunk, ...pages[c]! }));
}

/** A part's whole metadata from its head and, for version 3, the pages it stored (all of them, from their first byte). */
export function decodePartMetadata(head: string, pages = ""): PartMetadata {
  const part = decodePartHead(head);
  const rowGroups = part.rowGroups.map((group): RowGroupMeta => {
    const stored = Array.isArray(group.pages) ? group.pages : decodeGroupPages(pages.slice(group.pages.offset, group.pages.offset + group.pages.length), group.columns.length);
    return { rows: group.rows, columns: joinChunks(group.columns, stored) };
  });
  return { kinds: part.kinds, rows: part.rows, byteLength: part.byteLength, rowGroups };
}

/** Bytes of pages a version-3 head says its part stores after its summary (0 for older heads). */
export function storedPagesBytes(head: PartHead): number {
  return head.rowGroups.reduce((end, group) => (Array.isArray(group.pages) ? end : Math.max(end, group.pages.offset + group.pages.length)), 0);
}
