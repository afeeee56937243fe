// One CSV upload into one segment, as it streams: validate (CsvScanner) → compress
// (PartedCompressor, a new part at a record end every PART_RAW_BYTES) → R2 (SegmentUpload).
// Memory stays bounded by one R2 part; any failure aborts the R2 object (SPEC B1, B7).
import { CsvScanner, type CsvMode, type CsvStats } from "../csv/scanner.ts";
import { PART_RAW_BYTES, type Limits } from "../config.ts";
import { PartedCompressor } from "../storage/parted-segment.ts";
import { SegmentUpload } from "../storage/segment-store.ts";
import type { SegmentRow } from "../storage/datasets-db.ts";
import { ApiError } from "../errors.ts";
import { ColumnTyper, type TypingPlan } from "../schema/column-typer.ts";
import type { DeclaredSchema } from "../schema/declared.ts";
import { textSchema, type TableSchema } from "../schema/table-schema.ts";

/**
 * D1 keeps a header as one JSON value, and D1 refuses values past 2,000,000 bytes. A header is
 * checked as soon as it is read, so a too-wide one is refused before the rest of the upload is
 * processed, not with a 500 at the commit after it.
 */
export const MAX_HEADER_JSON_BYTES = 1_900_000;

function checkHeader(header: string[] | null): boolean {
  if (header === null) return false;
  const bytes = new TextEncoder().encode(JSON.stringify(header)).length;
  if (bytes > MAX_HEADER_JSON_BYTES) {
    throw new ApiError("payload_too_large", `The header takes ${bytes} bytes as JSON; at most ${MAX_HEADER_JSON_BYTES} can be stored.`, {
      limit: "MAX_HEADER_JSON_BYTES",
      max: MAX_HEADER_JSON_BYTES,
      row: 1,
    });
  }
  return true;
}

const SCAN_SLICE = 256 * 1024;

export interface IngestedSegment {
  segment: SegmentRow;
  crc: number;
  stats: CsvStats;
  /** The content's Table Schema (SPEC C2): inferred and declared, or the one appends were held to. */
  schema: TableSchema;
  /** The declaration in force for this content (carried fields whose columns are gone dropped). */
  declared: DeclaredSchema | null;
}

/** No declaration: every column inferred. */
export const INFER_ALL: TypingPlan = { kind: "infer", declared: null };

export async function ingestCsv(
  source: ReadableStream<Uint8Array>,
  options: { mode: CsvMode; typing: TypingPlan | null; limits: Limits; bucket: R2Bucket; key: string; partRawBytes?: number },
): Promise<IngestedSegment> {
  const { limits } = options;
  // null: the cells are not typed (only the bench's baseline, src/bench/routes.ts, asks for that).
  const typer = options.typing === null ? null : new ColumnTyper(options.typing);
  const scanner = new CsvScanner(
    options.mode,
    { maxColumns: limits.maxColumns, maxFieldBytes: limits.maxFieldBytes, maxHeaderBytes: limits.maxHeaderBytes },
    typer,
  );
  const upload = new SegmentUpload(options.bucket, options.key);
  let pending: Uint8Array[] = [];
  const compressor = new PartedCompressor(limits.compressionLevel, (chunk) => pending.push(chunk));
  const partRawBytes = options.partRawBytes ?? PART_RAW_BYTES;
  let emitted = 0; // output bytes before the ones being passed on
  let partStart = 0; // output offset where the open part starts
  let rowsBefore = 0; // data rows in the closed parts
  /** Passes validated bytes on, closing the part at the last record end once it is full. */
  const pass = (valid: Uint8Array): void => {
    const cut = scanner.recordEnd;
    if (cut > emitted && cut - partStart >= partRawBytes) {
      const at = cut - emitted;
      compressor.push(valid.subarray(0, at));
      compressor.endPart(scanner.rowsAtRecordEnd - rowsBefore);
      rowsBefore = scanner.rowsAtRecordEnd;
      partStart = cut;
      compressor.push(valid.subarray(at));
    } else {
      compressor.push(valid);
    }
    emitted += valid.length;
  };
  const drain = async (): Promise<void> => {
    const ready = pending;
    pending = [];
    for (const chunk of ready) await upload.write(chunk);
  };
  const reader = source.getReader();
  let headerChecked = options.mode.kind !== "table";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Scanned in slices so a part overshoots its target by at most one slice.
      for (let at = 0; at < value.length; at += SCAN_SLICE) pass(scanner.push(value.subarray(at, at + SCAN_SLICE)));
      headerChecked ||= checkHeader(scanner.stats.header);
      await drain();
    }
    pass(scanner.finish());
    if (!headerChecked) checkHeader(scanner.stats.header);
    const totals = compressor.finish(scanner.stats.rows - rowsBefore);
    await drain();
    await upload.finish();
    return {
      segment: {
        key: options.key,
        compressedBytes: totals.compressedBytes,
        rawBytes: totals.rawBytes,
        rowCount: scanner.stats.rows,
        parts: totals.parts,
      },
      crc: totals.crc,
      stats: scanner.stats,
      schema: typer?.schema() ?? textSchema(scanner.stats.header ?? []),
      declared: typer?.declaration() ?? null,
    };
  } catch (error: unknown) {
    await reader.cancel(error).catch(() => {});
    await upload.abort();
    throw error;
  }
}
