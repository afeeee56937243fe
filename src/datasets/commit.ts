// Turns a validated write into the next version of a dataset's linear chain (SPEC B3, B7).
// Content is already in R2; here the version is derived from the current latest version and
// committed with D1's compare-and-swap, rebuilding on the new latest version after a lost race
// so concurrent appends all land. `If-Match` turns a lost race into 412 instead.
import { ApiError } from "../errors.ts";
import { crc32Combine } from "../storage/crc32.ts";
import { compressSegment } from "../storage/deflate-segment.ts";
import {
  commitVersion,
  getDataset,
  getVersion,
  type DatasetRow,
  type SegmentRow,
  type VersionRow,
} from "../storage/datasets-db.ts";
import { deleteObjects, newSegmentKey, putSegment } from "../storage/segment-store.ts";
import type { Collection } from "./collection-schema.ts";
import type { IngestedSegment } from "./ingest.ts";

const MAX_ATTEMPTS = 20;

export interface LatestState {
  dataset: DatasetRow;
  version: VersionRow;
}

export async function latestState(db: D1Database, datasetId: string): Promise<LatestState | null> {
  const dataset = await getDataset(db, datasetId);
  if (!dataset) return null;
  const version = await getVersion(db, dataset.id, dataset.latestVersion);
  if (!version) return null;
  return { dataset, version };
}

/** What a PUT or append contributes; `derive` builds the new version from the parent. */
export interface VersionChange {
  collection: Collection | null;
  derive(parent: VersionRow): Promise<{ content: Omit<VersionRow, "id" | "datasetId" | "seq" | "parentId" | "created" | "name" | "visibility" | "properties">; reuseParentSegments: boolean; newSegments: SegmentRow[] }>;
}

export async function commitChange(
  env: { DB: D1Database; CONTENT: R2Bucket },
  datasetId: string,
  change: VersionChange,
  ifMatch: string | null,
): Promise<{ dataset: DatasetRow; version: VersionRow }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const latest = await latestState(env.DB, datasetId);
    if (!latest) throw new ApiError("not_found", `No dataset ${datasetId}.`);
    const parent = latest.version;
    if (ifMatch !== null && ifMatch !== parent.id) {
      throw new ApiError("precondition_failed", `If-Match names ${ifMatch} but the latest version is ${parent.id}.`);
    }
    const derived = await change.derive(parent);
    const version: VersionRow = {
      ...derived.content,
      id: crypto.randomUUID(),
      datasetId,
      seq: parent.seq + 1,
      parentId: parent.id,
      created: new Date().toISOString(),
      name: change.collection?.name ?? parent.name,
      visibility: change.collection?.visibility ?? parent.visibility,
      properties: change.collection?.properties ?? parent.properties,
    };
    const outcome = await commitVersion(env.DB, {
      dataset: null,
      version,
      reuseParentSegments: derived.reuseParentSegments,
      newSegments: derived.newSegments,
    });
    if (outcome === "committed") {
      return { dataset: { ...latest.dataset, name: version.name, visibility: version.visibility, latestVersion: version.id, latestSeq: version.seq }, version };
    }
    if (outcome === "gone") throw new ApiError("not_found", `No dataset ${datasetId}.`);
    if (ifMatch !== null) throw new ApiError("precondition_failed", "Another write committed a newer version first.");
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
  }
  throw new ApiError("conflict", "Too many concurrent writes to this dataset; retry.", {}, { "Retry-After": "1" });
}

/** Content of a replaced version: exactly the new segment. */
export function replacedContent(ingested: IngestedSegment, fileName: string) {
  return {
    content: {
      fileName,
      columns: ingested.stats.header ?? [],
      rowCount: ingested.stats.rows,
      rawBytes: ingested.segment.rawBytes,
      crc32: ingested.crc,
      eol: ingested.stats.eol,
      endsWithNewline: ingested.stats.endsWithNewline,
    },
    reuseParentSegments: false,
    newSegments: [ingested.segment],
  };
}

function sameCell(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Appended content: the parent's segments, a one-line-break segment when the parent does not
 * end in one, then the appended segment. The CRC continues the parent's (crc32Combine), so
 * nothing already stored is read again. Rows were validated against the parent seen at ingest;
 * a parent replaced since then is re-checked here.
 */
export class AppendPlan {
  private lineBreak: { segment: SegmentRow; crc: number } | null = null;
  private lineBreakUsed = false;
  private readonly env: { CONTENT: R2Bucket };
  private readonly datasetId: string;
  private readonly ingested: IngestedSegment;
  private readonly level: number;

  constructor(env: { CONTENT: R2Bucket }, datasetId: string, ingested: IngestedSegment, level: number) {
    this.env = env;
    this.datasetId = datasetId;
    this.ingested = ingested;
    this.level = level;
  }

  async derive(parent: VersionRow) {
    const appended = this.ingested;
    if (appended.stats.columns !== parent.columns.length) {
      throw new ApiError("column_count_mismatch", `Rows must have ${parent.columns.length} fields.`, {
        row: 1,
        expected: parent.columns.length,
        found: appended.stats.columns,
      });
    }
    const first = appended.stats.firstRow ?? [];
    if (first.length === parent.columns.length && first.every((cell, i) => sameCell(cell, parent.columns[i] ?? ""))) {
      throw new ApiError("header_row_in_append", "The first appended row repeats the dataset's header.", { row: 1 });
    }
    const newSegments: SegmentRow[] = [];
    let crc = parent.crc32;
    let rawBytes = parent.rawBytes;
    this.lineBreakUsed = !parent.endsWithNewline;
    if (!parent.endsWithNewline) {
      const lineBreak = await this.lineBreakSegment(parent.eol);
      newSegments.push(lineBreak.segment);
      crc = crc32Combine(crc, lineBreak.crc, lineBreak.segment.rawBytes);
      rawBytes += lineBreak.segment.rawBytes;
    }
    newSegments.push(appended.segment);
    crc = crc32Combine(crc, appended.crc, appended.segment.rawBytes);
    rawBytes += appended.segment.rawBytes;
    return {
      content: {
        fileName: parent.fileName,
        columns: parent.columns,
        rowCount: parent.rowCount + appended.stats.rows,
        rawBytes,
        crc32: crc,
        eol: parent.eol,
        endsWithNewline: appended.stats.endsWithNewline,
      },
      reuseParentSegments: true,
      newSegments,
    };
  }

  private async lineBreakSegment(eol: "\n" | "\r\n") {
    if (this.lineBreak && this.lineBreak.segment.rawBytes === eol.length) return this.lineBreak;
    const compressed = compressSegment(new TextEncoder().encode(eol), this.level);
    const key = newSegmentKey(this.datasetId);
    await putSegment(this.env.CONTENT, key, compressed.data);
    this.lineBreak = { segment: { key, compressedBytes: compressed.compressedBytes, rawBytes: compressed.rawBytes, rowCount: 0 }, crc: compressed.crc };
    return this.lineBreak;
  }

  /** Deletes the line-break object when the committed version (if any) does not use it. */
  async discardUnused(committed: boolean): Promise<void> {
    if (this.lineBreak && (!committed || !this.lineBreakUsed)) {
      await deleteObjects(this.env.CONTENT, [this.lineBreak.segment.key]);
    }
  }
}
