// The tail of a stitched Parquet file: everything after the parts. A ColumnIndex per column
// chunk whose pages all have bounds, an OffsetIndex per column chunk, then FileMetaData with absolute offsets, its 4-byte length and `PAR1`. Written from the
// parts' metadata alone, so an append writes a new tail without reading any part.
// https://github.com/apache/parquet-format/blob/master/README.md#file-format
// https://github.com/apache/parquet-format/blob/master/PageIndex.md
import type { TableSchema } from "../../schema/table-schema.ts";
import { ByteBuffer, utf8 } from "./byte-buffer.ts";
import { type ColumnKind, kindFits, PHYSICAL, physicalType, unifyKinds } from "./column-kinds.ts";
import { CODEC_SNAPPY } from "./page-header.ts";
import type { ChunkHead, ChunkMeta, PartMetadata } from "./part-metadata.ts";
import { writeSchema } from "./schema-elements.ts";
import { CompactWriter, T_BINARY, T_I32, T_I64, T_STRUCT, T_TRUE } from "./thrift-compact.ts";

export const MAGIC = utf8("PAR1");
export const CREATED_BY = "pubset";
/** parquet.thrift BoundaryOrder: pages' bounds are not claimed to be sorted. */
const BOUNDARY_UNORDERED = 0;

/** What planKinds reads of a part: its kinds, and which of its chunks hold a value. */
export interface PartKinds {
  kinds: readonly ColumnKind[];
  rowGroups: readonly { columns: readonly Pick<ChunkMeta, "values" | "nulls">[] }[];
}

/** The kinds a file of `parts` is written as, and the parts that must be encoded again with them. */
export function planKinds(parts: readonly PartKinds[]): { kinds: ColumnKind[]; reencode: number[] } {
  const kinds = unifyKinds(...parts.map((part) => part.kinds));
  const reencode = parts.flatMap((part, p) =>
    part.rowGroups.some((group) => group.columns.some((chunk, c) => !kindFits(part.kinds[c]!, kinds[c]!, chunk.values > chunk.nulls))) ? [p] : [],
  );
  return { kinds, reencode };
}

function offsetIndex(chunk: ChunkMeta, start: number): Uint8Array {
  const w = new CompactWriter(new ByteBuffer(16 + chunk.pageOffsets.length * 12));
  w.list(1, T_STRUCT, chunk.pageOffsets.length);
  chunk.pageOffsets.forEach((offset, i) => {
    w.element().i64(1, start + offset).i32(2, chunk.pageSizes[i]!).i64(3, chunk.pageFirstRows[i]!).end();
  });
  return w.end().out.copy();
}

/** The chunk's ColumnIndex (per page: all null or not, min, max, null count), or null when a page with values has no bounds. */
function columnIndex(chunk: ChunkMeta): Uint8Array | null {
  const index = chunk.pageIndex;
  if (index === null) return null;
  const pages = chunk.pageFirstRows.length;
  const empty = new Uint8Array(0);
  const nullPages = chunk.pageFirstRows.map((first, i) => index.nulls[i]! === (i + 1 < pages ? chunk.pageFirstRows[i + 1]! : chunk.values) - first);
  if (nullPages.some((isNull, i) => !isNull && (index.mins[i] === null || index.maxs[i] === null))) return null;
  const w = new CompactWriter(new ByteBuffer(32 + pages * 24));
  w.list(1, T_TRUE, pages);
  for (const isNull of nullPages) w.boolElement(isNull);
  w.list(2, T_BINARY, pages);
  for (let i = 0; i < pages; i++) w.binaryElement(nullPages[i] ? empty : index.mins[i]!);
  w.list(3, T_BINARY, pages);
  for (let i = 0; i < pages; i++) w.binaryElement(nullPages[i] ? empty : index.maxs[i]!);
  w.i32(4, BOUNDARY_UNORDERED);
  w.list(5, T_I64, pages);
  for (const nulls of index.nulls) w.i64Element(nulls);
  return w.end().out.copy();
}

function hasLegacyOrder(kind: ColumnKind): boolean {
  const type = physicalType(kind);
  return type !== PHYSICAL.BYTE_ARRAY && type !== PHYSICAL.FIXED_LEN_BYTE_ARRAY;
}

interface Located {
  offset: number;
  length: number;
}

function columnChunk(w: CompactWriter, name: Uint8Array, kind: ColumnKind, chunk: FooterChunk, start: number, index: { offsets: Located; columns: Located | null }): void {
  const dataOffset = start + chunk.firstPage;
  w.element().i64(2, start).struct(3);
  w.i32(1, physicalType(kind));
  w.list(2, T_I32, chunk.encodings.length);
  for (const encoding of chunk.encodings) w.i32Element(encoding);
  w.list(3, T_BINARY, 1).binaryElement(name);
  w.i32(4, CODEC_SNAPPY).i64(5, chunk.values).i64(6, chunk.uncompressed).i64(7, chunk.compressed).i64(9, dataOffset);
  if (chunk.dictionary) w.i64(11, start);
  w.struct(12);
  if (chunk.min !== null && chunk.max !== null && hasLegacyOrder(kind)) w.binary(1, chunk.max).binary(2, chunk.min);
  w.i64(3, chunk.nulls);
  if (chunk.min !== null && chunk.max !== null) w.binary(5, chunk.max).binary(6, chunk.min);
  w.end().end();
  w.i64(4, index.offsets.offset).i32(5, index.offsets.length);
  if (index.columns !== null) w.i64(6, index.columns.offset).i32(7, index.columns.length);
  w.end();
}

/**
 * The tail for `parts` stitched in order after `PAR1`. Throws when a part's kinds disagree with
 * the file's (planKinds says which parts to encode again). `keyValue` always gains `pubset.schema`.
 */
export function writeTail(schema: TableSchema, parts: readonly PartMetadata[], keyValue: Readonly<Record<string, string>> = {}): Uint8Array {
  const tail = new TailWriter(schema, keyValue);
  for (const part of parts) tail.add(part);
  return tail.finish();
}

/** A chunk as the footer needs it once its part's pages are gone, with where its indexes sit in their sections. */
interface FooterChunk extends ChunkHead {
  /** Where its first data page starts, relative to the chunk. */
  firstPage: number;
  offsets: Located;
  columns: Located | null;
}

interface FooterPart {
  kinds: ColumnKind[];
  byteLength: number;
  rows: number;
  rowGroups: { rows: number; columns: FooterChunk[] }[];
}

/**
 * The ColumnIndexes (or OffsetIndexes) of the parts added so far: one array of its exact length
 * per part, so the section's bytes are held once, with no growing buffer's spare room.
 */
class IndexSection {
  readonly pieces: Uint8Array[] = [];
  length = 0;

  add(indexes: readonly Uint8Array[]): void {
    const bytes = new Uint8Array(indexes.reduce((sum, index) => sum + index.length, 0));
    let at = 0;
    for (const index of indexes) {
      bytes.set(index, at);
      at += index.length;
    }
    this.pieces.push(bytes);
    this.length += bytes.length;
  }
}

/**
 * writeTail one part at a time, for parts too many to hold with their pages at once (a build's
 * end, docs/performance.md): each part's ColumnIndexes and OffsetIndexes are written as it is
 * added, and only its head is kept for the footer, so the writer holds the index bytes and the
 * heads, not every part's pages. The bytes are writeTail's to the byte.
 */
export class TailWriter {
  private readonly names: string[];
  private columnIndexes = new IndexSection();
  private offsetIndexes = new IndexSection();
  private parts: FooterPart[] = [];
  private finished = false;
  /** The parts' bytes so far, `PAR1` included: where the next part starts in the file. */
  private partStart = MAGIC.length;

  private readonly schema: TableSchema;
  private readonly keyValue: Readonly<Record<string, string>>;

  constructor(schema: TableSchema, keyValue: Readonly<Record<string, string>> = {}) {
    this.schema = schema;
    this.keyValue = keyValue;
    this.names = schema.fields.map((field) => field.name);
  }

  /** Adds the next part; its metadata is not kept (nor its pages). */
  add(part: PartMetadata): void {
    if (this.finished) throw new Error("TailWriter: add after finish");
    if (part.kinds.length !== this.names.length) throw new Error("writeTail: a part has another column count than the schema");
    // Each index's place in its section: after the earlier parts' and this part's earlier ones.
    const columnIndexes = { list: [] as Uint8Array[], at: this.columnIndexes.length };
    const offsetIndexes = { list: [] as Uint8Array[], at: this.offsetIndexes.length };
    const place = (into: { list: Uint8Array[]; at: number }, bytes: Uint8Array): Located => {
      const located = { offset: into.at, length: bytes.length };
      into.list.push(bytes);
      into.at += bytes.length;
      return located;
    };
    const partStart = this.partStart;
    const rowGroups = part.rowGroups.map((group) => ({
      rows: group.rows,
      columns: group.columns.map((chunk): FooterChunk => {
        const columns = columnIndex(chunk);
        return {
          offset: chunk.offset,
          compressed: chunk.compressed,
          uncompressed: chunk.uncompressed,
          values: chunk.values,
          nulls: chunk.nulls,
          dictionary: chunk.dictionary,
          encodings: chunk.encodings,
          min: chunk.min,
          max: chunk.max,
          instantDigits: chunk.instantDigits,
          firstPage: chunk.pageOffsets[0]!,
          columns: columns === null ? null : place(columnIndexes, columns),
          offsets: place(offsetIndexes, offsetIndex(chunk, partStart + chunk.offset)),
        };
      }),
    }));
    this.columnIndexes.add(columnIndexes.list);
    this.offsetIndexes.add(offsetIndexes.list);
    this.parts.push({ kinds: part.kinds, byteLength: part.byteLength, rows: part.rows, rowGroups });
    this.partStart += part.byteLength;
  }

  /** The kinds of the parts added so far, and those to encode again (planKinds). */
  plan(): { kinds: ColumnKind[]; reencode: number[] } {
    return planKinds(this.parts);
  }

  /**
   * The tail's bytes; the writer is spent after it. The footer is written on its own first, then
   * the indexes and it are copied once into a tail of its exact length, and the writer lets go of
   * its buffers, so a large tail is not held twice over while it is stored (docs/performance.md).
   */
  finish(): Uint8Array {
    if (this.finished) throw new Error("TailWriter: finish twice");
    const { parts, names, columnIndexes, offsetIndexes } = this;
    const nameBytes = names.map(utf8);
    const { kinds: unified, reencode } = planKinds(parts);
    if (reencode.length > 0) throw new Error(`writeTail: parts ${reencode.join(", ")} were encoded with other kinds than the file's`);
    const kinds = parts.length > 0 ? unified : names.map((): ColumnKind => "string");
    // Every ColumnIndex, then every OffsetIndex, as PageIndex.md lays them out, after the parts.
    const columnsAt = this.partStart;
    const offsetsAt = columnsAt + columnIndexes.length;
    const footer = new ByteBuffer(1 << 16);
    const w = new CompactWriter(footer);
    w.i32(1, 2);
    writeSchema(w, names, kinds);
    w.i64(3, parts.reduce((sum, part) => sum + part.rows, 0));
    w.list(4, T_STRUCT, parts.reduce((sum, part) => sum + part.rowGroups.length, 0));
    let partStart = MAGIC.length;
    for (const part of parts) {
      for (const rowGroup of part.rowGroups) {
        const first = rowGroup.columns[0];
        w.element().list(1, T_STRUCT, rowGroup.columns.length);
        rowGroup.columns.forEach((chunk, c) => {
          const index = {
            offsets: { offset: offsetsAt + chunk.offsets.offset, length: chunk.offsets.length },
            columns: chunk.columns === null ? null : { offset: columnsAt + chunk.columns.offset, length: chunk.columns.length },
          };
          columnChunk(w, nameBytes[c]!, kinds[c]!, chunk, partStart + chunk.offset, index);
        });
        w.i64(2, rowGroup.columns.reduce((sum, chunk) => sum + chunk.uncompressed, 0)).i64(3, rowGroup.rows);
        if (first) w.i64(5, partStart + first.offset);
        w.i64(6, rowGroup.columns.reduce((sum, chunk) => sum + chunk.compressed, 0)).end();
      }
      partStart += part.byteLength;
    }
    const pairs = Object.entries({ ...this.keyValue, "pubset.schema": JSON.stringify(this.schema) });
    w.list(5, T_STRUCT, pairs.length);
    for (const [key, value] of pairs) w.element().string(1, key).string(2, value).end();
    w.string(6, CREATED_BY);
    w.list(7, T_STRUCT, names.length);
    for (let i = 0; i < names.length; i++) w.element().struct(1).end().end();
    w.end();
    const out = new ByteBuffer(columnIndexes.length + offsetIndexes.length + footer.length + 4 + MAGIC.length);
    for (const piece of columnIndexes.pieces) out.write(piece);
    for (const piece of offsetIndexes.pieces) out.write(piece);
    out.write(footer.bytes.subarray(0, footer.length));
    out.i32(footer.length);
    out.write(MAGIC);
    this.finished = true;
    this.columnIndexes = new IndexSection();
    this.offsetIndexes = new IndexSection();
    this.parts = [];
    return out.bytes;
  }
}
