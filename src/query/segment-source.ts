// The version's rows read from its CSV segments (docs/storage-protocol.md): the query's answer
// while the Parquet twin is pending or failed, and for columns the twin cannot give back as
// written. Each segment is one piece; only the needed columns are cast (src/schema/cast.ts).
import type { TableSchema } from "../schema/table-schema.ts";
import type { SegmentRow } from "../model/dataset.ts";
import { segmentRows } from "../columnar/segment-rows.ts";
import type { ScanPiece } from "./scan.ts";
import { castRows } from "./cast-rows.ts";

export function segmentPieces(bucket: R2Bucket, schema: TableSchema, segments: readonly SegmentRow[]): ScanPiece[] {
  const missing = new Set(schema.missingValues);
  let firstRow = 0;
  return segments.map((segment, index) => {
    const piece: ScanPiece = {
      rowCount: segment.rowCount,
      firstRow,
      cost: () => segment.rawBytes,
      rows: async function* (columns) {
        for await (const records of segmentRows(bucket, segment.key, index === 0, segment.rowCount)) yield { rows: castRows(schema, missing, records, columns) };
      },
    };
    firstRow += segment.rowCount;
    return piece;
  });
}
