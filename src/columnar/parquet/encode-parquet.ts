// Whole files in one call, for tests and small tables: one part (encoded again with wider kinds
// when its values need them) and its tail. The service stitches parts itself (docs/columnar.md).
import type { TableSchema } from "../../schema/table-schema.ts";
import { type ColumnKind, startKinds } from "./column-kinds.ts";
import type { PartMetadata } from "./part-metadata.ts";
import { PartWriter, type PartWriterOptions } from "./part-writer.ts";
import { MAGIC, writeTail } from "./tail-writer.ts";

/** One part of `rows`, widening kinds until they hold every value: its bytes and metadata. */
export function encodePart(schema: TableSchema, rows: readonly (readonly string[])[], kinds: readonly ColumnKind[] = startKinds(schema), options: PartWriterOptions = {}): { bytes: Uint8Array[]; metadata: PartMetadata } {
  let current = kinds;
  for (;;) {
    const writer = new PartWriter(schema, current, options);
    writer.addRows(rows);
    const result = writer.finish();
    if (result.ok) return { bytes: writer.takeBytes(), metadata: result.metadata };
    current = result.kinds;
  }
}

/** `PAR1`, the parts and the tail as one file. */
export function joinParquet(parts: readonly (readonly Uint8Array[])[], tail: Uint8Array): Uint8Array {
  const pieces = [MAGIC, ...parts.flat(), tail];
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** `rows` (CSV cell texts in field order) as one Parquet file. */
export function encodeParquet(schema: TableSchema, rows: readonly (readonly string[])[], options: PartWriterOptions = {}): Uint8Array {
  const part = encodePart(schema, rows, startKinds(schema), options);
  return joinParquet([part.bytes], writeTail(schema, [part.metadata]));
}
