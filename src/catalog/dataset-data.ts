// What a dataset's catalog page shows: the latest version's metadata, a page of its version
// history, the first rows, the column statistics and the download sizes. Anonymous scope always:
// a private or missing dataset is `null`, which the page turns into a 404, and drafts are never
// listed. One D1 batch finds the version, its segments and its Parquet twin; the statistics are
// a bounded range read of the document the twin's build stored (docs/catalog.md), never a scan.
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

export interface DatasetPageData {
  dataset: DatasetRow;
  latest: VersionRow;
  versions: HistoryEntry[];
  /** True when `versions` starts past the newest (an "older versions" page). */
  olderPage: boolean;
  /** `?versions=…` of the next, older page of history, or null. */
  olderVersionsCursor: string | null;
  preview: string[][];
  statistics: ColumnStatisticsState;
  downloads: Downloads;
}

async function latestPublicVersion(
  db: D1Database,
  id: string,
): Promise<{ dataset: DatasetRow; version: VersionRow; segments: SegmentRow[]; twin: TwinRow | null } | null> {
  if (!UUID_PATTERN.test(id)) return null;
  try {
    return await readableFiles(db, id, "latest", null);
  } catch (error: unknown) {
    if (error instanceof ApiError && error.code === "not_found") return null;
    throw error;
  }
}

/** `versionsCursor` is a history page's cursor; a foreign one is a 400 invalid_query. */
export async function loadDatasetPage(
  env: { DB: D1Database; CONTENT: R2Bucket },
  id: string,
  versionsCursor: string | undefined,
): Promise<DatasetPageData | null> {
  const beforeSeq = versionsCursor !== undefined ? decodeSeqCursor(versionsCursor) : undefined;
  const found = await latestPublicVersion(env.DB, id);
  if (!found) return null;
  const { dataset, version, segments, twin } = found;
  const [history, preview, statistics] = await Promise.all([
    listVersions(env.DB, dataset.id, { beforeSeq, limit: VERSIONS_PAGE_SIZE + 1, publishedOnly: true }),
    readRowWindow(segments, (key, range) => openSegment(env.CONTENT, key, range), { offset: 0, limit: PREVIEW_ROWS, maxChars: PREVIEW_MAX_CHARS }),
    readLeadingStatistics(env.CONTENT, twin, SUMMARY_COLUMNS, SUMMARY_MAX_BYTES),
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
