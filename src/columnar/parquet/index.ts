// The Parquet encoder's public surface: kinds, the part writer, part metadata, the tail writer.
// Pure (Uint8Array, DataView, TextEncoder): it runs in workerd, Node and browsers alike.
export { type ColumnKind, COLUMN_KINDS, startKinds, unifyKind, unifyKinds } from "./column-kinds.ts";
export { PAGE_ROWS } from "./column-chunk.ts";
export { PartWriter, type PartResult, type PartWriterOptions, ROW_GROUP_BYTES, ROW_GROUP_ROWS } from "./part-writer.ts";
export {
  type ChunkHead,
  type ChunkMeta,
  type ChunkPages,
  decodeGroupPages,
  decodePartHead,
  decodePartMetadata,
  encodePartMetadata,
  joinChunks,
  PART_METADATA_VERSION,
  type PagesAt,
  type PartHead,
  type PartMetadata,
  type RowGroupHead,
  type RowGroupMeta,
  storedPagesBytes,
  type StoredPartMetadata,
} from "./part-metadata.ts";
export { CREATED_BY, MAGIC, planKinds, TailWriter, writeTail } from "./tail-writer.ts";
export { encodeParquet, encodePart, joinParquet } from "./encode-parquet.ts";
export { snappyCompress } from "./snappy.ts";
export type { ValueSink } from "./value-sink.ts";
