// A version's statistics document (docs/statistics.md "Where they come from",
// docs/storage-protocol.md "The Parquet twin"): each part of its twin holds the summary of its
// rows, and the document is their merge, in file order, rendered when it is read, so a build
// (an append's above all) writes no version-wide summary. The rendered bytes of a twin (a
// function of its parts; a rebuild stitches others) are kept in the isolate, like the HTTP cache
// keeps the other immutable version documents. Twins built before kept the document after their tail,
// and it is read from there. The catalog page keeps only the first columns of the document.
import { KeptInIsolate } from "../storage/kept-in-isolate.ts";
import type { TwinRow } from "../read/store.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import { statisticsDocument, type ColumnStatistics } from "./statistics/document.ts";
import { createSummaries, decodeSummary, mergeSummaries } from "./statistics/table-summary.ts";
import { readTwinRange } from "./part-metadata-read.ts";
import { twinIdentity } from "./tail-object.ts";

export interface StatisticsRange {
  key: string;
  offset: number;
  length: number;
}

/** The stored document's bytes in the tail object of a twin built with one, else null. */
export function statisticsRange(twin: TwinRow | null): StatisticsRange | null {
  if (twin?.state !== "ready" || twin.tailKey === null || twin.documentBytes === 0) return null;
  return { key: twin.tailKey, offset: twin.tailBytes + twin.summaryBytes, length: twin.documentBytes };
}

/** Rendered documents kept per isolate, keyed by the twin's parts (a rebuild stitches others) and column count. */
const rendered = new KeptInIsolate<Uint8Array>(4 * 1024 * 1024);

/**
 * The statistics document of a ready twin as JSON bytes, or null while the twin is pending or
 * failed: stored after the tail (older twins), else its parts' summaries merged in file order
 * and rendered for `schema`. Throws when an object is missing (a broken invariant).
 */
export async function statisticsDocumentBytes(bucket: R2Bucket, schema: TableSchema, twin: TwinRow | null): Promise<Uint8Array | null> {
  if (twin?.state !== "ready") return null;
  const stored = statisticsRange(twin);
  if (stored) return readTwinRange(bucket, stored.key, stored.offset, stored.length);
  return renderedDocument(bucket, schema, twin, Infinity);
}

/** The document of the first `maxColumns` columns, merged from the parts' summaries, kept per twin and column count. */
async function renderedDocument(bucket: R2Bucket, schema: TableSchema, twin: TwinRow, maxColumns: number): Promise<Uint8Array> {
  const fields = schema.fields.slice(0, maxColumns);
  const key = `${twinIdentity(twin)}#${fields.length}`;
  const cached = rendered.get(key);
  if (cached) return cached;
  const head = { ...schema, fields };
  let summary = createSummaries(head);
  // One part's summary at a time: the merge holds the version's summary and one part's.
  for (const part of twin.parts) {
    summary = mergeSummaries(summary, decodeSummary(await readTwinRange(bucket, part.key, part.dataBytes + part.metaBytes, part.summaryBytes), fields.length));
  }
  const bytes = new TextEncoder().encode(JSON.stringify(statisticsDocument(head, summary)));
  rendered.keep(key, bytes, bytes.length);
  return bytes;
}

export interface LeadingStatistics {
  rows: number;
  /** The first columns, in order: as many as were asked for and arrived whole within the read. */
  columns: ColumnStatistics[];
}

/**
 * The first `maxColumns` column entries of a ready twin's document (only those merged), or of a
 * stored one from at most `maxBytes` of it; null when the twin is not ready. Throws when an object is missing (a broken invariant).
 */
export async function readLeadingStatistics(bucket: R2Bucket, schema: TableSchema, twin: TwinRow | null, maxColumns: number, maxBytes: number): Promise<LeadingStatistics | null> {
  if (twin?.state !== "ready") return null;
  const range = statisticsRange(twin);
  if (range === null) {
    // Only the columns shown are merged: a page of a 4,000-column version merges 40.
    const bytes = await renderedDocument(bucket, schema, twin, maxColumns);
    return JSON.parse(new TextDecoder().decode(bytes)) as LeadingStatistics;
  }
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
