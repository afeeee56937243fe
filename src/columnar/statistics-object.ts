// Where a built twin keeps its statistics document (docs/statistics.md "Where they come from"):
// after the Parquet tail and the merged summary in the tail object, so one R2 range read fetches
// it. The route streams it whole; the catalog page reads at most a bounded prefix and keeps the
// columns that arrived complete, so a dataset of thousands of columns costs it no more.
import type { TwinRow } from "../read/store.ts";
import type { ColumnStatistics } from "./statistics/document.ts";

export interface StatisticsRange {
  key: string;
  offset: number;
  length: number;
}

/** The document's bytes in the tail object, or null while the twin is pending or failed. */
export function statisticsRange(twin: TwinRow | null): StatisticsRange | null {
  if (twin?.state !== "ready" || twin.tailKey === null) return null;
  return { key: twin.tailKey, offset: twin.tailBytes + twin.summaryBytes, length: twin.documentBytes };
}

export interface LeadingStatistics {
  rows: number;
  /** The first columns, in order: as many as were asked for and arrived whole within the read. */
  columns: ColumnStatistics[];
}

/**
 * The first `maxColumns` column entries of a ready twin's document, reading at most `maxBytes`
 * of it; null when the twin is not ready. Throws when the object is missing (a broken invariant).
 */
export async function readLeadingStatistics(bucket: R2Bucket, twin: TwinRow | null, maxColumns: number, maxBytes: number): Promise<LeadingStatistics | null> {
  const range = statisticsRange(twin);
  if (range === null) return null;
  const length = Math.min(range.length, maxBytes);
  const object = await bucket.get(range.key, { range: { offset: range.offset, length } });
  if (!object) throw new Error(`parquet object missing: ${range.key}`);
  const text = await object.text();
  return leadingColumns(text, maxColumns);
}

/**
 * Parses `{"rows":N,"columns":[{…},{…},…` as JSON.stringify wrote it (document.ts), keeping the
 * column objects that are complete in `text`, at most `maxColumns` of them.
 */
export function leadingColumns(text: string, maxColumns: number): LeadingStatistics {
  const head = /^\{"rows":(\d+),"columns":\[/.exec(text);
  if (!head) throw new RangeError("not a statistics document");
  const columns: ColumnStatistics[] = [];
  let depth = 0;
  let inString = false;
  let start = head[0].length;
  for (let i = start; i < text.length && columns.length < maxColumns; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) columns.push(JSON.parse(text.slice(start, i + 1)) as ColumnStatistics);
      else if (depth < 0) break;
    }
  }
  return { rows: Number(head[1]), columns };
}
