// A query's window of rows (docs/queries.md), wherever they are read from: with no `where` and no
// `order`, the rows from `offset` in file order, read from only the segment parts that hold them;
// otherwise the matching rows in the query's order, scanned (scan.ts) from the Parquet twin or the
// CSV segments (plan.ts). `/rows` answers it as JSON, and the dataset page draws it.
import { readRowWindow } from "../read/row-reader.ts";
import { typedRow, type Cell } from "../schema/cast.ts";
import { openSegment } from "../storage/segment-store.ts";
import type { TwinRow } from "../read/store.ts";
import type { SegmentRow, StoredVersionRow } from "../model/dataset.ts";
import type { CompiledQuery } from "./language/query.ts";
import { scanSource, segmentsOf, type SegmentList } from "./plan.ts";
import { answerWindow, project, type WindowAnswer, type WindowRequest } from "./scan.ts";
import { fillFromSegments } from "./fill-rows.ts";

export type { WindowAnswer, WindowRequest };

/** The stored files of one version: what readableFiles (src/read/content.ts) finds. */
export interface VersionFiles {
  version: StoredVersionRow;
  segments: readonly SegmentRow[];
  twin: TwinRow | null;
}

/** The same, where the segments may be left to read only if the CSV is read (plan.ts). */
export type QueriedFiles = Omit<VersionFiles, "segments"> & { segments: SegmentList };

/** Rows in file order from `offset` (no `where`, no `order`): only the segment parts holding them are read. */
async function fileWindow(bucket: R2Bucket, version: StoredVersionRow, segments: readonly SegmentRow[], query: CompiledQuery, offset: number, limit: number, maxChars: number): Promise<WindowAnswer> {
  const rows =
    offset < version.rowCount ? await readRowWindow(segments, (key, range) => openSegment(bucket, key, range), { offset, limit, maxChars }) : [];
  const missing = new Set(version.schema.missingValues);
  const typed: Cell[][] = rows.map((cells) => project(query, typedRow(version.schema, missing, cells)));
  return { rows: typed, matched: version.rowCount, partial: false, scanned: 0, positions: typed.map((_, i) => offset + i) };
}

/** The window of the matching rows, scanned (plan.ts); cells the twin keeps as instants come from the CSV. */
async function scannedWindow(bucket: R2Bucket, version: StoredVersionRow, segments: SegmentList, twin: TwinRow | null, query: CompiledQuery, request: WindowRequest): Promise<WindowAnswer> {
  const source = await scanSource(bucket, version, segments, twin, query, true);
  const answer = await answerWindow(source.pieces, query, request, source.read);
  if (source.fill.length > 0 && answer.rows.length > 0) await fillFromSegments(bucket, version.schema, await segmentsOf(segments), query, source.fill, answer.rows, answer.positions);
  return answer;
}

/** True when the query filters or sorts: its window is scanned, not read in file order. */
export function isScanned(query: CompiledQuery): boolean {
  return query.where !== null || query.order.length > 0;
}

/** The query's window of `files`' rows, cells in the order of the query's columns. */
export async function queryWindow(bucket: R2Bucket, files: QueriedFiles, query: CompiledQuery, request: WindowRequest): Promise<WindowAnswer> {
  const { version, segments, twin } = files;
  return isScanned(query)
    ? scannedWindow(bucket, version, segments, twin, query, request)
    : fileWindow(bucket, version, await segmentsOf(segments), query, request.offset, request.limit, request.maxChars);
}
