// A stored segment's data rows, in batches of cell texts, for the Parquet build: inflated and
// decoded as they stream from R2, so memory holds one chunk's records, not the segment. The
// first segment of a version opens with the header record, which is not a data row.
import { CsvRecordDecoder } from "../csv/index.ts";
import { inflateSegment } from "../storage/segment-inflate.ts";
import { openSegment } from "../storage/segment-store.ts";

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
  const reader = inflateSegment(await openSegment(bucket, key)).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const records = counted(decoder.push(text.decode(value, { stream: true })));
      if (records.length > 0) yield records;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const last = counted([...decoder.push(text.decode()), ...decoder.finish()]);
  if (last.length > 0) yield last;
  if (rows !== expectedRows) throw new Error(`segment ${key} holds ${rows} data rows, its row says ${expectedRows}`);
}
