// A stored segment's data rows, in batches of cells, for the Parquet build: inflated and decoded
// as they stream from R2, so memory holds one batch's records, not the segment. The first
// segment of a version opens with the header record, which is not a data row.
//
// The platform's inflate hands out 4 KiB chunks (about 30 rows of a typical CSV), and each batch
// costs a turn of this generator, of its consumer and of the part writer's column loops; so the
// inflated bytes are read GATHER_BYTES at a time before their records are taken.
import type { CellBatch } from "../csv/cell-batch.ts";
import { CellDecoder } from "../csv/cell-decoder.ts";
import { inflateSegment } from "../storage/segment-inflate.ts";
import { openSegment } from "../storage/segment-store.ts";

/** Inflated bytes decoded as one batch (docs/performance.md, "The Parquet twin in workerd"). */
export const GATHER_BYTES = 256 * 1024;

/** The segment's data rows as batches of cells (cell-batch.ts), each valid until the next is asked for. */
export async function* segmentCells(bucket: R2Bucket, key: string, opensWithHeader: boolean, expectedRows: number): AsyncGenerator<CellBatch> {
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
  // A BYOB reader fills GATHER_BYTES a read (workerd's readAtLeast), where a default reader gets the inflate's 4 KiB chunks.
  const reader = inflateSegment(await openSegment(bucket, key)).getReader({ mode: "byob" });
  let buffer = new Uint8Array(GATHER_BYTES);
  try {
    for (;;) {
      const { done, value } = await reader.readAtLeast(GATHER_BYTES, buffer);
      if (value === undefined) break;
      if (value.length > 0) {
        decoder.push(value);
        for (let batch = decoder.take(); batch !== null; batch = decoder.take()) if (counted(batch).records > 0) yield batch;
      }
      if (done) break;
      buffer = new Uint8Array(value.buffer);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  decoder.finish();
  for (let batch = decoder.take(); batch !== null; batch = decoder.take()) if (counted(batch).records > 0) yield batch;
  if (rows !== expectedRows) throw new Error(`segment ${key} holds ${rows} data rows, its row says ${expectedRows}`);
}

/** The segment's data rows as arrays of cell texts (for readers that want strings: queries). */
export async function* segmentRows(bucket: R2Bucket, key: string, opensWithHeader: boolean, expectedRows: number): AsyncGenerator<string[][]> {
  for await (const batch of segmentCells(bucket, key, opensWithHeader, expectedRows)) yield batch.rows();
}
