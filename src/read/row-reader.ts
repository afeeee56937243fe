// Reads a window of data rows from a version's segments (docs/api.md, rows endpoint) touching only
// the parts that hold it: cumulative part row counts from D1 find the first one, an R2 range
// read fetches it alone, a byte-level skip reaches the offset, and reading stops once full.
import { CsvRecordDecoder } from "../csv/index.ts";
import { RecordSkipper } from "../csv/record-skipper.ts";
import { inflatePartRange } from "../storage/segment-inflate.ts";
import { partsOf } from "../storage/segment-parts-db.ts";
import type { SegmentRow } from "../model/dataset.ts";

/** Where data row `offset` (0-based) is: piece `index`, after `skip` of its records. */
export interface RowPosition {
  index: number;
  skip: number;
}

/** A byte range of a segment object; absent: the whole object. */
export interface ByteRange {
  offset: number;
  length: number;
}

/** One independently inflatable piece of a version's content: a part of a segment. */
export interface ContentPiece {
  key: string;
  range?: ByteRange;
  rowCount: number;
}

/** The version's content as pieces in order; a segment without stored parts is one piece. */
export function contentPieces(segments: readonly SegmentRow[]): ContentPiece[] {
  const pieces: ContentPiece[] = [];
  for (const segment of segments) {
    if (!segment.parts || segment.parts.length === 0) {
      pieces.push({ key: segment.key, rowCount: segment.rowCount });
      continue;
    }
    for (const part of segment.parts) {
      pieces.push({ key: segment.key, range: { offset: part.compressedOffset, length: part.compressedBytes }, rowCount: part.rowCount });
    }
  }
  return pieces;
}

/**
 * Every piece starts at a record boundary, and its row count counts data rows only; the
 * first piece of a version opens with the header record, so its skip includes that record.
 * Null when the version has no row `offset`.
 */
export function locateRow(pieces: readonly Pick<ContentPiece, "rowCount">[], offset: number): RowPosition | null {
  let before = 0;
  for (let index = 0; index < pieces.length; index++) {
    const rows = pieces[index]?.rowCount ?? 0;
    if (offset < before + rows) return { index, skip: offset - before + (index === 0 ? 1 : 0) };
    before += rows;
  }
  return null;
}

export interface RowWindowRequest {
  offset: number;
  limit: number;
  /** Cell characters after which the window ends early; it always holds at least one row. */
  maxChars: number;
}

/** Inflated bytes decoded at a time. */
const VIEW_BYTES = 64 * 1024;

/** Opens a stored segment's compressed bytes, or only `range` of them. */
export type OpenSegment = (key: string, range?: ByteRange) => Promise<ReadableStream<Uint8Array>>;

export async function readRowWindow(
  segments: readonly SegmentRow[],
  open: OpenSegment,
  request: RowWindowRequest,
): Promise<string[][]> {
  const rows: string[][] = [];
  const pieces = contentPieces(segments);
  const start = locateRow(pieces, request.offset);
  if (!start || request.limit < 1) return rows;
  let chars = 0;
  let full = false;
  const take = (records: string[][]): void => {
    for (const record of records) {
      if (full) return;
      rows.push(record);
      for (const cell of record) chars += cell.length;
      full = rows.length >= request.limit || chars >= request.maxChars;
    }
  };
  const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const decoder = new CsvRecordDecoder({ midFile: true });
  // Piece i is part `index` of a segment's part list (contentPieces): read from its own R2 range.
  const located = segments.flatMap((segment) => partsOf(segment).map((_, index, parts) => ({ key: segment.key, parts, index })));
  for (let index = start.index; index < located.length && !full; index++) {
    const piece = located[index];
    if (!piece) break;
    const skipper = index === start.index && start.skip > 0 ? new RecordSkipper(start.skip) : null;
    const views = inflatePartRange((range) => open(piece.key, range), piece.parts, piece.index, piece.index + 1, VIEW_BYTES);
    for await (let bytes of views) {
      if (skipper && !skipper.done) {
        const at = skipper.push(bytes);
        if (at < 0) continue;
        bytes = bytes.subarray(at);
      }
      take(decoder.push(text.decode(bytes, { stream: true })));
      // Leaving the loop cancels the inflate and the R2 read behind it once the window is full.
      if (full) break;
    }
    if (skipper && !skipper.done) throw new Error(`segment ${piece.key} holds fewer records than its row count`);
  }
  if (!full) {
    take(decoder.push(text.decode()));
    take(decoder.finish());
  }
  return rows;
}
