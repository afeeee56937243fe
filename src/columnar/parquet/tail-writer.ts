// The tail of a stitched Parquet file: everything after the parts. A ColumnIndex per column
// chunk whose pages all have bounds, an OffsetIndex per column chunk, then FileMetaData with absolute offsets, its 4-byte length and `PAR1`. Written from the
// parts' metadata alone, so an append writes a new tail without reading any part.
// https://github.com/apache/parquet-format/blob/master/README.md#file-format
// https://github.com/apache/parquet-format/blob/master/PageIndex.md
import type { TableSchema } from "../../schema/table-schema.ts";
import { ByteBuffer, utf8 } from "./byte-buffer.ts";
import { type ColumnKind, kindFits, PHYSICAL, physicalType, unifyKinds } from "./column-kinds.ts";
import { CODEC_SNAPPY } from "./page-header.ts";
import type { ChunkMeta, PartMetadata } from "./part-metadata.ts";
import { writeSchema } from "./schema-elements.ts";
import { CompactWriter, T_BINARY, T_I32, T_I64, T_STRUCT, T_TRUE } from "./thrift-compact.ts";

export const MAGIC = utf8("PAR1");
export const CREATED_BY = "pubset";
/** parquet.thrift BoundaryOrder: pages' bounds are not claimed to be sorted. */
const BOUNDARY_UNORDERED = 0;

/** The kinds a file of `parts` is written as, and the parts that must be encoded again with them. */
export function planKinds(parts: readonly PartMetadata[]): { kinds: ColumnKind[]; reencode: number[] } {
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

function columnChunk(w: CompactWriter, name: Uint8Array, kind: ColumnKind, chunk: ChunkMeta, start: number, index: { offsets: Located; columns: Located | null }): void {
  const dataOffset = start + chunk.pageOffsets[0]!;
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
  const names = schema.fields.map((field) => field.name);
  const nameBytes = names.map(utf8);
  if (parts.some((part) => part.kinds.length !== names.length)) throw new Error("writeTail: a part has another column count than the schema");
  const { kinds: unified, reencode } = planKinds(parts);
  if (reencode.length > 0) throw new Error(`writeTail: parts ${reencode.join(", ")} were encoded with other kinds than the file's`);
  const kinds = parts.length > 0 ? unified : names.map((): ColumnKind => "string");
  const out = new ByteBuffer(1 << 16);
  let position = MAGIC.length + parts.reduce((sum, part) => sum + part.byteLength, 0);
  const place = (bytes: Uint8Array): Located => {
    out.write(bytes);
    const entry = { offset: position, length: bytes.length };
    position += bytes.length;
    return entry;
  };
  // Every ColumnIndex, then every OffsetIndex, as PageIndex.md lays them out.
  const columnIndexes = parts.flatMap((part) =>
    part.rowGroups.map((group) =>
      group.columns.map((chunk) => {
        const bytes = columnIndex(chunk);
        return bytes === null ? null : place(bytes);
      }),
    ),
  );
  const indexes: { offsets: Located; columns: Located | null }[][] = [];
  let partStart = MAGIC.length;
  for (const part of parts) {
    for (const group of part.rowGroups) {
      const columns = columnIndexes[indexes.length]!;
      indexes.push(group.columns.map((chunk, c) => ({ offsets: place(offsetIndex(chunk, partStart + chunk.offset)), columns: columns[c]! })));
    }
    partStart += part.byteLength;
  }
  const w = new CompactWriter(out);
  const footerStart = out.length;
  w.i32(1, 2);
  writeSchema(w, names, kinds);
  w.i64(3, parts.reduce((sum, part) => sum + part.rows, 0));
  w.list(4, T_STRUCT, indexes.length);
  let group = 0;
  partStart = MAGIC.length;
  for (const part of parts) {
    for (const rowGroup of part.rowGroups) {
      const first = rowGroup.columns[0];
      w.element().list(1, T_STRUCT, rowGroup.columns.length);
      rowGroup.columns.forEach((chunk, c) => columnChunk(w, nameBytes[c]!, kinds[c]!, chunk, partStart + chunk.offset, indexes[group]![c]!));
      w.i64(2, rowGroup.columns.reduce((sum, chunk) => sum + chunk.uncompressed, 0)).i64(3, rowGroup.rows);
      if (first) w.i64(5, partStart + first.offset);
      w.i64(6, rowGroup.columns.reduce((sum, chunk) => sum + chunk.compressed, 0)).end();
      group++;
    }
    partStart += part.byteLength;
  }
  const pairs = Object.entries({ ...keyValue, "pubset.schema": JSON.stringify(schema) });
  w.list(5, T_STRUCT, pairs.length);
  for (const [key, value] of pairs) w.element().string(1, key).string(2, value).end();
  w.string(6, CREATED_BY);
  w.list(7, T_STRUCT, names.length);
  for (let i = 0; i < names.length; i++) w.element().struct(1).end().end();
  w.end();
  out.i32(out.length - footerStart);
  out.write(MAGIC);
  return out.copy();
}
