// The version's rows read from its CSV segments (docs/storage-protocol.md): the query's answer
// while the Parquet twin is pending or failed, and for columns the twin cannot give back as
// written. Each segment is one piece. Only the `where` columns of a record are cast first; the
// other needed columns only for the records that match (src/schema/cast.ts).
import type { TableSchema } from "../schema/table-schema.ts";
import type { SegmentRow } from "../model/dataset.ts";
import { segmentRows } from "../columnar/segment-rows.ts";
import type { CompiledQuery } from "./language/query.ts";
import type { ScanPiece } from "./scan.ts";
import { castMatching } from "./cast-rows.ts";

export function segmentPieces(bucket: R2Bucket, schema: TableSchema, segments: readonly SegmentRow[], query: CompiledQuery): ScanPiece[] {
  const missing = new Set(schema.missingValues);
  let firstRow = 0;
  return segments.map((segment, index) => {
    const start = firstRow;
    const piece: ScanPiece = {
      rowCount: segment.rowCount,
      firstRow: start,
      cost: () => segment.rawBytes,
      rows: async function* (columns) {
        let next = start;
        for await (const records of segmentRows(bucket, segment, index === 0)) {
          yield castMatching(schema, missing, query, records, columns, next);
          next += records.length;
        }
      },
    };
    firstRow += segment.rowCount;
    return piece;
  });
}
