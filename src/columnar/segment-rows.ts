// A stored segment's data rows, in batches of cells, for the Parquet build: inflated and decoded
// as they stream from R2, so memory holds one group of parts and one batch's records, not the
// segment. The first segment of a version opens with the header record, which is not a data row.
//
// Each batch costs a turn of this generator, of its consumer and of the part writer's column
// loops; so the inflated bytes are decoded GATHER_BYTES at a time (the platform's inflate hands
// out 4 KiB chunks to a plain read).
import type { CellBatch } from "../csv/cell-batch.ts";
import { CellDecoder } from "../csv/cell-decoder.ts";
import type { SegmentRow } from "../model/dataset.ts";
import { inflateParts } from "../storage/segment-inflate.ts";
import { partsOf } from "../storage/segment-parts-db.ts";
import { openSegment } from "../storage/segment-store.ts";

/** Inflated bytes decoded as one batch (docs/performance.md, "The Parquet twin in workerd"). */
export const GATHER_BYTES = 256 * 1024;

/** The segment's data rows as batches of cells (cell-batch.ts), each valid until the next is asked for. */
export async function* segmentCells(bucket: R2Bucket, segment: SegmentRow, opensWithHeader: boolean): AsyncGenerator<CellBatch> {
  const decoder = new CellDecoder({ midFile: true });
  let skipHeader = opensWithHeader;
  let rows = 0;
  const counted = (batch: CellBatch): CellBatch => {
    if (skipHeader && batch.records > 0) {
      batch.dropFirst();
      skipHeader = false;
    }
    rows += batch.records;
    return batch;
  };
  for await (const bytes of inflateParts(await openSegment(bucket, segment.key), partsOf(segment), GATHER_BYTES)) {
    decoder.push(bytes);
    for (let batch = decoder.take(); batch !== null; batch = decoder.take()) if (counted(batch).records > 0) yield batch;
  }
  decoder.finish();
  for (let batch = decoder.take(); batch !== null; batch = decoder.take()) if (counted(batch).records > 0) yield batch;
  if (rows !== segment.rowCount) throw new Error(`segment ${segment.key} holds ${rows} data rows, its row says ${segment.rowCount}`);
}

/** The segment's data rows as arrays of cell texts (for readers that want strings: queries). */
export async function* segmentRows(bucket: R2Bucket, segment: SegmentRow, opensWithHeader: boolean): AsyncGenerator<string[][]> {
  for await (const batch of segmentCells(bucket, segment, opensWithHeader)) yield batch.rows();
}
