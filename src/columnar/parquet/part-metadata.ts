// What a part's footer entries need, kept beside the part so a version's tail is written from
// metadata alone: per row group, per column chunk, sizes, offsets relative to the part's first
// byte, encodings, statistics and page locations. Serialized as versioned JSON with positional
// arrays (a 4,000-column row group stays small); decodePartMetadata refuses other versions.
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

export const PART_METADATA_VERSION = 2;
/** Version 1 had no page bounds; its parts are still read (their chunks get no column index). */
const READABLE_VERSIONS: readonly unknown[] = [1, PART_METADATA_VERSION];

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
type ChunkTuple = [number, number, number, number, number, 0 | 1, number[], string | null, string | null, number[], number[], number[], PageIndexTuple | null, number | null];

/** The JSON stored beside a part: `{"v":2,"kinds":[…],"rows":N,"bytes":N,"groups":[[rows,[chunk…]]…]}`. */
export function encodePartMetadata(meta: PartMetadata): string {
  const groups = meta.rowGroups.map((group) => [
    group.rows,
    group.columns.map((c): ChunkTuple => [c.offset, c.compressed, c.uncompressed, c.values, c.nulls, c.dictionary ? 1 : 0, c.encodings, base64(c.min), base64(c.max), c.pageOffsets, c.pageSizes, c.pageFirstRows, c.pageIndex && [c.pageIndex.nulls, c.pageIndex.mins.map(base64), c.pageIndex.maxs.map(base64)], c.instantDigits]),
  ]);
  return JSON.stringify({ v: PART_METADATA_VERSION, kinds: meta.kinds, rows: meta.rows, bytes: meta.byteLength, groups });
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

/** Reads what encodePartMetadata wrote (this version or the one before); throws on another version or a malformed document. */
export function decodePartMetadata(text: string): PartMetadata {
  const doc = JSON.parse(text) as { v?: unknown; kinds?: unknown; rows?: unknown; bytes?: unknown; groups?: unknown };
  if (!READABLE_VERSIONS.includes(doc.v)) throw new Error(`part metadata: version ${String(doc.v)} is not ${PART_METADATA_VERSION}`);
  if (!Array.isArray(doc.kinds) || !doc.kinds.every((k) => (COLUMN_KINDS as readonly unknown[]).includes(k))) throw new Error("part metadata: bad kinds");
  if (!Array.isArray(doc.groups)) throw new Error("part metadata: bad row groups");
  const width = doc.kinds.length;
  const rowGroups = doc.groups.map((group: unknown): RowGroupMeta => {
    if (!Array.isArray(group) || !Array.isArray(group[1]) || group[1].length !== width) throw new Error("part metadata: bad row group");
    const columns = (group[1] as unknown[]).map((tuple): ChunkMeta => {
      // Version 2 chunks written before instantDigits have 13 entries.
      if (!Array.isArray(tuple) || (doc.v === 1 ? tuple.length !== 12 : tuple.length !== 13 && tuple.length !== 14)) throw new Error("part metadata: bad column chunk");
      const t = tuple as unknown[];
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
        pageOffsets: numbers(t[9]),
        pageSizes: numbers(t[10]),
        pageFirstRows: numbers(t[11]),
        pageIndex: pageIndex(t[12], (t[9] as number[]).length),
        instantDigits: digits(t[13]),
      };
    });
    return { rows: integer(group[0]), columns };
  });
  return { kinds: doc.kinds as ColumnKind[], rows: integer(doc.rows), byteLength: integer(doc.bytes), rowGroups };
}
