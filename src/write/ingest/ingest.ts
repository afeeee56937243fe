// One CSV upload into one segment, as it streams: validate (CsvScanner) → compress
// (PartedCompressor, a new part at a record end every PART_RAW_BYTES) → R2 (SegmentUpload).
// Memory stays bounded by one R2 part; any failure aborts the R2 object (docs/api.md#errors, docs/storage-protocol.md). A chunk
// of a resumable upload takes the same path and stops at its last record end (ingestChunk).
import { RecordKernel } from "../../csv/record-kernel.ts";
import { CsvScanner, type CsvCheckpoint, type CsvMode, type CsvStats } from "../../csv/scanner.ts";
import { PART_RAW_BYTES, type Limits } from "../../config.ts";
import { concatBytes } from "../../wire/deflate-segment.ts";
import { PartedCompressor } from "../../wire/parted-segment.ts";
import { SegmentUpload } from "../../storage/segment-store.ts";
import { ApiError } from "../../model/errors.ts";
import { ColumnTyper, type TypingCheckpoint, type TypingPlan } from "../../schema/column-typer.ts";
import type { DeclaredSchema } from "../../schema/declared.ts";
import { textSchema, type TableSchema } from "../../schema/table-schema.ts";
import type { SegmentRow } from "../../model/dataset.ts";

/**
 * D1 keeps a header as one JSON value, and D1 refuses values past 2,000,000 bytes. A header is
 * checked as soon as it is read, so a too-wide one is refused before the rest of the upload is
 * processed, not with a 500 at the commit after it.
 */
export const MAX_HEADER_JSON_BYTES = 1_900_000;

export function checkHeader(header: string[] | null): boolean {
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
  /** The content's Table Schema (docs/column-types.md): inferred and declared, or the one appends were held to. */
  schema: TableSchema;
  /** The declaration in force for this content (carried fields whose columns are gone dropped). */
  declared: DeclaredSchema | null;
}

/** No declaration: every column inferred. */
export const INFER_ALL: TypingPlan = { kind: "infer", declared: null };

/**
 * Content stored as several segments in order: a resumable upload's chunks (write.ts commits it
 * as "already-stored segments"). One ingested segment is the one-segment case (`contentOf`).
 */
export interface IngestedContent {
  segments: SegmentRow[];
  rawBytes: number;
  crc: number;
  stats: CsvStats;
  schema: TableSchema;
  declared: DeclaredSchema | null;
}

export function contentOf(ingested: IngestedSegment | IngestedContent): IngestedContent {
  if ("segments" in ingested) return ingested;
  const { segment, crc, stats, schema, declared } = ingested;
  return { segments: [segment], rawBytes: segment.rawBytes, crc, stats, schema, declared };
}

/** A chunk of a resumable upload, ingested up to its last record end (`final: false`). */
export interface IngestedChunk extends IngestedSegment {
  /** The scan's state at the cut; null when no record has ended yet. */
  checkpoint: CsvCheckpoint | null;
  /** The typing's state to go on from (its inference is idempotent, so a carried record seen twice counts once). */
  typing: TypingCheckpoint | null;
  /** The input after the cut (an unfinished record, blank lines): scanned again before the next chunk. */
  carry: Uint8Array;
}

export interface IngestOptions {
  mode: CsvMode;
  /** null: the cells are not typed (only the bench's baseline, src/bench/routes.ts, asks for that). */
  typing: TypingPlan | null;
  limits: Limits;
  bucket: R2Bucket;
  key: string;
  partRawBytes?: number;
  /** Go on from a checkpoint of an earlier chunk: row numbers continue, no BOM is looked for. */
  resume?: { scan: CsvCheckpoint; typing: TypingCheckpoint | null } | null;
}

export function ingestCsv(source: ReadableStream<Uint8Array>, options: IngestOptions): Promise<IngestedSegment> {
  return ingest(source, options, null);
}

/**
 * One chunk of a resumable upload: the same scan → compress → R2 path, but the segment ends at
 * the last record end and the bytes after it come back as `carry`, at most `maxCarryBytes`.
 */
export function ingestChunk(source: ReadableStream<Uint8Array>, options: IngestOptions & { maxCarryBytes: number }): Promise<IngestedChunk> {
  return ingest(source, options, options.maxCarryBytes) as Promise<IngestedChunk>;
}

async function ingest(
  source: ReadableStream<Uint8Array>,
  options: IngestOptions,
  maxCarryBytes: number | null,
): Promise<IngestedSegment | IngestedChunk> {
  const { limits } = options;
  const resume = options.resume ?? null;
  const typer = options.typing === null ? null : new ColumnTyper(options.typing);
  if (typer && resume) typer.resume(resume.scan, resume.typing);
  const scanner = new CsvScanner(
    options.mode,
    { maxColumns: limits.maxColumns, maxFieldBytes: limits.maxFieldBytes, maxHeaderBytes: limits.maxHeaderBytes },
    typer,
    resume?.scan,
    new RecordKernel(typer, limits.maxFieldBytes),
  );
  const upload = new SegmentUpload(options.bucket, options.key);
  let pending: Uint8Array[] = [];
  const compressor = new PartedCompressor(limits.compressionLevel, (chunk) => pending.push(chunk));
  const partRawBytes = options.partRawBytes ?? PART_RAW_BYTES;
  const rowsAtStart = scanner.rowsAtRecordEnd;
  let emitted = 0; // output bytes before the ones being passed on
  let partStart = 0; // output offset where the open part starts
  let rowsBefore = rowsAtStart; // data rows in the closed parts
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
  // A chunk passes on only whole records: the input since the last record end is held (before
  // a record end, output and input differ only by a dropped BOM) and becomes the carry.
  const carry = maxCarryBytes === null ? null : new InputTail(maxCarryBytes);
  const scan = (slice: Uint8Array): void => {
    const valid = scanner.push(slice);
    if (!carry) return pass(valid);
    carry.add(slice);
    const end = scanner.inputRecordEnd;
    if (end > carry.start) {
      const first = carry.start === 0;
      const records = carry.take(end);
      pass(first ? records.subarray(scanner.bomBytes) : records);
    }
    carry.check();
  };
  const drain = async (): Promise<void> => {
    const ready = pending;
    pending = [];
    for (const chunk of ready) await upload.write(chunk);
  };
  const reader = source.getReader();
  let headerChecked = options.mode.kind !== "table" || resume !== null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Scanned in slices so a part overshoots its target by at most one slice.
      for (let at = 0; at < value.length; at += SCAN_SLICE) scan(value.subarray(at, at + SCAN_SLICE));
      headerChecked ||= checkHeader(scanner.stats.header);
      await drain();
    }
    if (!carry) pass(scanner.finish());
    if (!headerChecked) checkHeader(scanner.stats.header);
    const rows = carry ? scanner.rowsAtRecordEnd : scanner.stats.rows;
    const totals = compressor.finish(rows - rowsBefore);
    await drain();
    await upload.finish();
    const ingested: IngestedSegment = {
      segment: { key: options.key, compressedBytes: totals.compressedBytes, rawBytes: totals.rawBytes, rowCount: rows - rowsAtStart, parts: totals.parts },
      crc: totals.crc,
      stats: carry ? { ...scanner.stats, rows, bytes: totals.rawBytes, endsWithNewline: true } : scanner.stats,
      schema: typer?.schema() ?? textSchema(scanner.stats.header ?? []),
      declared: typer?.declaration() ?? null,
    };
    if (!carry) return ingested;
    return { ...ingested, checkpoint: scanner.checkpoint, typing: typer?.checkpoint() ?? null, carry: carry.rest() };
  } catch (error: unknown) {
    await reader.cancel(error).catch(() => {});
    await upload.abort();
    throw error;
  }
}

/** The input since the last record end, bounded: what a chunk carries over to the next one. */
class InputTail {
  /** Input offset of the first held byte. */
  start = 0;
  private held: Uint8Array[] = [];
  private bytes = 0;
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  add(slice: Uint8Array): void {
    this.held.push(slice.slice());
    this.bytes += slice.length;
  }

  /** Removes and returns the held input before offset `end`. */
  take(end: number): Uint8Array {
    const all = concatAll(this.held);
    const at = end - this.start;
    this.held = at < all.length ? [all.subarray(at)] : [];
    this.bytes = all.length - at;
    this.start = end;
    return all.subarray(0, at);
  }

  check(): void {
    if (this.bytes > this.max) {
      throw new ApiError("payload_too_large", `A record that crosses a chunk boundary is kept with the upload up to ${this.max} bytes; send chunks that end nearer a line end, or larger chunks.`, {
        limit: "MAX_CARRY_BYTES",
        max: this.max,
      });
    }
  }

  rest(): Uint8Array {
    return concatAll(this.held);
  }
}

function concatAll(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}
