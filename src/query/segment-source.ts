// The version's rows read from its CSV segments (docs/storage-protocol.md): the query's answer
// while the Parquet twin is pending or failed, and for columns the twin cannot give back as
// written. Each segment is one piece; only the needed columns are cast (src/schema/cast.ts).
import type { Cell } from "../schema/cast.ts";
import { castCell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import type { SegmentRow } from "../model/dataset.ts";
import { segmentRows } from "../columnar/segment-rows.ts";
import type { ScanPiece } from "./scan.ts";

/** Cells of `columns` of each CSV record, typed by the schema; other cells stay null. */
export function castRows(schema: TableSchema, missing: ReadonlySet<string>, records: readonly string[][], columns: readonly number[]): Cell[][] {
  const width = schema.fields.length;
  return records.map((record) => {
    const row: Cell[] = new Array<Cell>(width).fill(null);
    for (const c of columns) {
      const field = schema.fields[c];
      const text = record[c] ?? "";
      if (!field) continue;
      const cast = castCell(field, text, missing);
      row[c] = cast.ok ? cast.value : text;
    }
    return row;
  });
}

export function segmentPieces(bucket: R2Bucket, schema: TableSchema, segments: readonly SegmentRow[]): ScanPiece[] {
  const missing = new Set(schema.missingValues);
  let firstRow = 0;
  return segments.map((segment, index) => {
    const piece: ScanPiece = {
      rowCount: segment.rowCount,
      firstRow,
      cost: () => segment.rawBytes,
      rows: async function* (columns) {
        for await (const records of segmentRows(bucket, segment.key, index === 0, segment.rowCount)) yield castRows(schema, missing, records, columns);
      },
    };
    firstRow += segment.rowCount;
    return piece;
  });
}
