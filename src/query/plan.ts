// Where a query's rows come from (docs/queries.md#cost): the Parquet twin when it is ready and
// gives back every needed column exactly, else the CSV segments. The answer is the same.
import type { SegmentRow, StoredVersionRow } from "../model/dataset.ts";
import type { TwinRow } from "../read/store.ts";
import type { CompiledQuery } from "./language/query.ts";
import type { ScanPiece } from "./scan.ts";
import { segmentPieces } from "./segment-source.ts";
import { twinPieces, type RangeRead } from "./twin-source.ts";

function r2RangeRead(bucket: R2Bucket): RangeRead {
  return async (key, offset, length) => {
    const object = await bucket.get(key, { range: { offset, length } });
    if (!object) throw new Error(`parquet object missing: ${key}`);
    return new Uint8Array(await object.arrayBuffer());
  };
}

/**
 * A version's segments, or how to read them where the version was read without them (a query
 * the twin may answer alone: src/read/store.ts); read only when the CSV is read after all.
 */
export type SegmentList = readonly SegmentRow[] | (() => Promise<readonly SegmentRow[]>);

export async function segmentsOf(list: SegmentList): Promise<readonly SegmentRow[]> {
  return typeof list === "function" ? list() : list;
}

export interface ScanSource {
  pieces: ScanPiece[];
  source: "parquet" | "csv";
  /** The columns to read from the pieces. */
  read: number[];
  /** Answered columns to fill from the CSV for the answer's rows (fill-rows.ts). */
  fill: number[];
}

/** `allowFill`: the caller fills answered datetime and time cells for its few rows (a window, not an export). */
export async function scanSource(bucket: R2Bucket, version: StoredVersionRow, segments: SegmentList, twin: TwinRow | null, query: CompiledQuery, allowFill = false): Promise<ScanSource> {
  if (twin?.state === "ready") {
    const scan = await twinPieces(r2RangeRead(bucket), twin.parts, version.schema, query, allowFill);
    if (scan !== null) return { ...scan, source: "parquet" };
  }
  return { pieces: segmentPieces(bucket, version.schema, await segmentsOf(segments), query), source: "csv", read: query.needed, fill: [] };
}
