// What a write makes of its parent's content (docs/api.md#writes, docs/storage-protocol.md): a replacement is exactly the new
// segment; an append is the parent's segments, a one-line-break segment when the parent does not
// end in one, then the appended segment, with the CRC continued (crc32Combine) so nothing stored
// is read again; a metadata-only PUT keeps the parent's content as it is.
import { ApiError } from "../../model/errors.ts";
import { crc32Combine } from "../../wire/crc32.ts";
import type { DeclaredSchema } from "../../schema/declared.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import { contentOf, type IngestedContent, type IngestedSegment } from "./ingest.ts";
import type { SegmentRow, VersionRow } from "../../model/dataset.ts";

/** The content fields of a version, and how its segment list is built. */
export interface DerivedContent {
  content: Pick<VersionRow, "fileName" | "columns" | "rowCount" | "rawBytes" | "crc32" | "eol" | "endsWithNewline" | "schema" | "declared">;
  reuseParentSegments: boolean;
  newSegments: SegmentRow[];
}

/** A stored one-line-break segment, made on demand (only appends to content without a final line break need one). */
export type LineBreakSource = (eol: "\n" | "\r\n") => Promise<{ segment: SegmentRow; crc: number }>;

export function replacedContent(uploaded: IngestedSegment | IngestedContent, fileName: string): DerivedContent {
  const ingested = contentOf(uploaded);
  return {
    content: {
      fileName,
      columns: ingested.stats.header ?? [],
      rowCount: ingested.stats.rows,
      rawBytes: ingested.rawBytes,
      crc32: ingested.crc,
      eol: ingested.stats.eol,
      endsWithNewline: ingested.stats.endsWithNewline,
      schema: ingested.schema,
      declared: ingested.declared,
    },
    reuseParentSegments: false,
    newSegments: ingested.segments,
  };
}

export function keptContent(parent: VersionRow): DerivedContent {
  const { fileName, columns, rowCount, rawBytes, crc32, eol, endsWithNewline, schema, declared } = parent;
  return {
    content: { fileName, columns, rowCount, rawBytes, crc32, eol, endsWithNewline, schema, declared },
    reuseParentSegments: true,
    newSegments: [],
  };
}

/** A schema-only PUT: the parent's content as it is, typed anew (its rows were checked again). */
export function retypedContent(parent: VersionRow, retyped: { schema: TableSchema; declared: DeclaredSchema | null }): DerivedContent {
  const kept = keptContent(parent);
  return { ...kept, content: { ...kept.content, schema: retyped.schema, declared: retyped.declared } };
}

function sameCell(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Rows were validated against the parent seen when the upload began; a parent replaced since
 * then (a concurrent PUT) is checked again here, before anything is committed.
 */
export async function appendedContent(
  parent: VersionRow,
  uploaded: IngestedSegment | IngestedContent,
  lineBreak: LineBreakSource,
): Promise<DerivedContent> {
  const appended = contentOf(uploaded);
  if (appended.schema !== parent.schema && JSON.stringify(appended.schema) !== JSON.stringify(parent.schema)) {
    // A PUT changed the types while these rows streamed; they were checked against the old ones.
    throw new ApiError("conflict", "The dataset's schema changed while the rows were sent; send them again.", {}, { "Retry-After": "1" });
  }
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
  if (!parent.endsWithNewline) {
    const inserted = await lineBreak(parent.eol);
    newSegments.push(inserted.segment);
    crc = crc32Combine(crc, inserted.crc, inserted.segment.rawBytes);
    rawBytes += inserted.segment.rawBytes;
  }
  newSegments.push(...appended.segments);
  crc = crc32Combine(crc, appended.crc, appended.rawBytes);
  rawBytes += appended.rawBytes;
  return {
    content: {
      fileName: parent.fileName,
      columns: parent.columns,
      rowCount: parent.rowCount + appended.stats.rows,
      rawBytes,
      crc32: crc,
      eol: parent.eol,
      endsWithNewline: appended.stats.endsWithNewline,
      schema: parent.schema,
      declared: parent.declared,
    },
    reuseParentSegments: true,
    newSegments,
  };
}
