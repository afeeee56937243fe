// One CSV upload into one segment, as it streams: validate (CsvScanner) → compress
// (SegmentCompressor) → R2 (SegmentUpload). Memory stays bounded by one R2 part whatever the
// upload's size; any failure aborts the R2 object so nothing is left reachable (SPEC B1, B7).
import { CsvScanner, type CsvMode, type CsvStats } from "../csv/scanner.ts";
import type { Limits } from "../config.ts";
import { SegmentCompressor } from "../storage/deflate-segment.ts";
import { SegmentUpload } from "../storage/segment-store.ts";
import type { SegmentRow } from "../storage/datasets-db.ts";

export interface IngestedSegment {
  segment: SegmentRow;
  crc: number;
  stats: CsvStats;
}

export async function ingestCsv(
  source: ReadableStream<Uint8Array>,
  options: { mode: CsvMode; limits: Limits; bucket: R2Bucket; key: string },
): Promise<IngestedSegment> {
  const { limits } = options;
  const scanner = new CsvScanner(options.mode, {
    maxColumns: limits.maxColumns,
    maxFieldBytes: limits.maxFieldBytes,
    maxHeaderBytes: limits.maxHeaderBytes,
  });
  const upload = new SegmentUpload(options.bucket, options.key);
  let pending: Uint8Array[] = [];
  const compressor = new SegmentCompressor(limits.compressionLevel, (chunk) => pending.push(chunk));
  const drain = async (): Promise<void> => {
    const ready = pending;
    pending = [];
    for (const chunk of ready) await upload.write(chunk);
  };
  const reader = source.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const valid = scanner.push(value);
      if (valid.length > 0) compressor.push(valid);
      await drain();
    }
    const tail = scanner.finish();
    if (tail.length > 0) compressor.push(tail);
    const totals = compressor.finish();
    await drain();
    await upload.finish();
    return {
      segment: { key: options.key, compressedBytes: totals.compressedBytes, rawBytes: totals.rawBytes, rowCount: scanner.stats.rows },
      crc: totals.crc,
      stats: scanner.stats,
    };
  } catch (error: unknown) {
    await reader.cancel(error).catch(() => {});
    await upload.abort();
    throw error;
  }
}
