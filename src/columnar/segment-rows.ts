// A stored segment's data rows, in batches of cell texts, for the Parquet build: inflated and
// decoded as they stream from R2, so memory holds one batch's records, not the segment. The
// first segment of a version opens with the header record, which is not a data row.
//
// The platform's inflate hands out 4 KiB chunks (about 30 rows of a typical CSV), and each batch
// costs a turn of this generator, of its consumer and of the part writer's column loops; so the
// bytes are gathered to GATHER_BYTES before they are decoded and handed on.
import { CsvRecordDecoder } from "../csv/index.ts";
import { inflateSegment } from "../storage/segment-inflate.ts";
import { openSegment } from "../storage/segment-store.ts";

/** Inflated bytes decoded as one batch (docs/performance.md, "The Parquet twin in workerd"). */
export const GATHER_BYTES = 256 * 1024;

export async function* segmentRows(bucket: R2Bucket, key: string, opensWithHeader: boolean, expectedRows: number): AsyncGenerator<string[][]> {
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const decoder = new CsvRecordDecoder({ midFile: true });
  let skipHeader = opensWithHeader;
  let rows = 0;
  const counted = (records: string[][]): string[][] => {
    if (skipHeader && records.length > 0) {
      records = records.slice(1);
      skipHeader = false;
    }
    rows += records.length;
    return records;
  };
  const gathered = new Uint8Array(GATHER_BYTES);
  let filled = 0;
  const decoded = (): string[][] => {
    const records = counted(decoder.push(text.decode(gathered.subarray(0, filled), { stream: true })));
    filled = 0;
    return records;
  };
  const reader = inflateSegment(await openSegment(bucket, key)).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A chunk larger than what is left is decoded on its own after the gathered bytes.
      if (value.length > GATHER_BYTES - filled) {
        const records = filled > 0 ? decoded() : [];
        const own = counted(decoder.push(text.decode(value, { stream: true })));
        for (const record of own) records.push(record);
        if (records.length > 0) yield records;
        continue;
      }
      gathered.set(value, filled);
      filled += value.length;
      if (filled === GATHER_BYTES) {
        const records = decoded();
        if (records.length > 0) yield records;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const last = filled > 0 ? decoded() : [];
  for (const record of counted([...decoder.push(text.decode()), ...decoder.finish()])) last.push(record);
  if (last.length > 0) yield last;
  if (rows !== expectedRows) throw new Error(`segment ${key} holds ${rows} data rows, its row says ${expectedRows}`);
}
