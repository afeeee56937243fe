// What a dataset's catalog page shows: the latest version's metadata, a page of its version
// history, the first rows, the column statistics and the download sizes. Anonymous scope always:
// a private or missing dataset is `null`, which the page turns into a 404, and drafts are never
// listed. One D1 batch finds the version, its segments and its Parquet twin; the statistics are
// a bounded range read of the document the twin's build stored (docs/catalog.md), never a scan.
// A preview that filters or sorts asks the query scan for its window, as `/rows` does.
import { readRowWindow } from "../read/row-reader.ts";
import { sourcePath } from "../read/shapes.ts";
import { readableFiles } from "../read/content.ts";
import { ApiError } from "../model/errors.ts";
import { decodeSeqCursor, encodeSeqCursor } from "../http/cursor.ts";
import { joinedGzipLength } from "../wire/gzip-join.ts";
import { openSegment } from "../storage/segment-store.ts";
import { listVersions, type VersionSummaryRow } from "../read/store.ts";
import { PREVIEW_MAX_CHARS, PREVIEW_ROWS, SUMMARY_COLUMNS, SUMMARY_MAX_BYTES, VERSIONS_PAGE_SIZE } from "./catalog-limits.ts";
import { csvPath } from "./format.ts";
import type { DatasetRow, SegmentRow, VersionRow } from "../model/dataset.ts";
import type { TwinRow } from "../read/store.ts";
import { readLeadingStatistics, type LeadingStatistics } from "../columnar/statistics-object.ts";
import { UUID_PATTERN } from "../model/ids.ts";
import { parquetFileName } from "../read/download-name.ts";
import { queryScanBudget } from "../config.ts";
import type { Cell } from "../schema/cast.ts";
import { compileQuery } from "../query/language/query.ts";
import type { QueryError } from "../query/language/query-error.ts";
import { queryWindow, type VersionFiles } from "../query/window.ts";
import { isQueried, type PreviewRequest } from "./preview-query.ts";

export interface Downloads {
  csvPath: string;
  csvBytes: number;
  gzipPath: string;
  gzipBytes: number;
  /** The Parquet twin's path (built after the commit; its size is not shown). */
  parquetPath: string;
}

/** A version in the history, with the downloads of that version. */
export interface HistoryEntry extends VersionSummaryRow {
  csvPath: string;
  gzipPath: string;
}

/** The column statistics of the shown version: computed, still being computed, or never to be. */
export type ColumnStatisticsState =
  | { state: "ready"; statistics: LeadingStatistics }
  | { state: "pending" }
  | { state: "failed"; reason: string | null };

/** The preview's rows: a window of the file, or of a query's answer, or why the query cannot run. */
export type PreviewState =
  | {
      state: "rows";
      /** Cells as text: as written in the file, or the query's typed cells written out. */
      rows: string[][];
      /** 1-based row number in the file of each shown row. */
      fileRows: number[];
      /** Rows the question matches (every row when it only sorts); a lower bound when partial. */
      matched: number;
      /** The scan stopped at its budget before reading every row. */
      partial: boolean;
    }
  | { state: "invalid"; error: QueryError };

export interface DatasetPageData {
  dataset: DatasetRow;
  latest: VersionRow;
  versions: HistoryEntry[];
  /** True when `versions` starts past the newest (an "older versions" page). */
  olderPage: boolean;
  /** `?versions=…` of the next, older page of history, or null. */
  olderVersionsCursor: string | null;
  preview: PreviewState;
  /** What the preview was asked (the page URL's `where`, `order` and `row`). */
  previewRequest: PreviewRequest;
  statistics: ColumnStatisticsState;
  downloads: Downloads;
}

async function latestPublicVersion(
  db: D1Database,
  id: string,
): Promise<(VersionFiles & { dataset: DatasetRow; segments: SegmentRow[] }) | null> {
  if (!UUID_PATTERN.test(id)) return null;
  try {
    return await readableFiles(db, id, "latest", null);
  } catch (error: unknown) {
    if (error instanceof ApiError && error.code === "not_found") return null;
    throw error;
  }
}

/** A query cell as the preview writes it: missing is empty, like an empty CSV cell. */
function cellText(cell: Cell): string {
  return cell === null ? "" : String(cell);
}

async function loadPreview(
  env: { CONTENT: R2Bucket },
  files: VersionFiles,
  request: PreviewRequest,
): Promise<PreviewState> {
  const offset = request.row - 1;
  const { version, segments } = files;
  if (!isQueried(request)) {
    // The file as written, from only the segment parts that hold the window.
    const rows = offset < version.rowCount ? await readRowWindow(segments, (key, range) => openSegment(env.CONTENT, key, range), { offset, limit: PREVIEW_ROWS, maxChars: PREVIEW_MAX_CHARS }) : [];
    return { state: "rows", rows, fileRows: rows.map((_, i) => offset + i + 1), matched: version.rowCount, partial: false };
  }
  const compiled = compileQuery({ where: request.where, order: request.order }, version.schema);
  if (!compiled.ok) return { state: "invalid", error: compiled.error };
  const answer = await queryWindow(env.CONTENT, files, compiled.value, { offset, limit: PREVIEW_ROWS, maxChars: PREVIEW_MAX_CHARS, budget: queryScanBudget(env) });
  return {
    state: "rows",
    rows: answer.rows.map((row) => row.map(cellText)),
    fileRows: answer.positions.map((position) => position + 1),
    matched: answer.matched,
    partial: answer.partial,
  };
}

/** `versionsCursor` is a history page's cursor; a foreign one is a 400 invalid_query. */
export async function loadDatasetPage(
  env: { DB: D1Database; CONTENT: R2Bucket },
  id: string,
  versionsCursor: string | undefined,
  previewRequest: PreviewRequest,
): Promise<DatasetPageData | null> {
  const beforeSeq = versionsCursor !== undefined ? decodeSeqCursor(versionsCursor) : undefined;
  const found = await latestPublicVersion(env.DB, id);
  if (!found) return null;
  const { dataset, version, segments, twin } = found;
  const [history, preview, statistics] = await Promise.all([
    listVersions(env.DB, dataset.id, { beforeSeq, limit: VERSIONS_PAGE_SIZE + 1, publishedOnly: true }),
    loadPreview(env, { version, segments, twin }, previewRequest),
    readLeadingStatistics(env.CONTENT, version.schema, twin, SUMMARY_COLUMNS, SUMMARY_MAX_BYTES),
  ]);
  const page = history.slice(0, VERSIONS_PAGE_SIZE);
  const versions = page.map((v) => ({ ...v, csvPath: csvPath(dataset.id, v.id, v.fileName), gzipPath: sourcePath(dataset.id, v.id, v.fileName) }));
  const last = versions[versions.length - 1];
  return {
    dataset,
    latest: version,
    versions,
    olderPage: beforeSeq !== undefined,
    olderVersionsCursor: history.length > VERSIONS_PAGE_SIZE && last ? encodeSeqCursor(last.seq) : null,
    preview,
    previewRequest,
    statistics: statistics !== null ? { state: "ready", statistics } : twin?.state === "failed" ? { state: "failed", reason: twin.error } : { state: "pending" },
    downloads: {
      csvPath: csvPath(dataset.id, version.id, version.fileName),
      csvBytes: version.rawBytes,
      gzipPath: sourcePath(dataset.id, version.id, version.fileName),
      gzipBytes: joinedGzipLength(segments.map((s) => s.compressedBytes)),
      parquetPath: `/v1/dataset/${dataset.id}/${version.id}/${parquetFileName(version.fileName)}`,
    },
  };
}
