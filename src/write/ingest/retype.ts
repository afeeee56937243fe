// Typing content that is already stored (docs/column-types.md): a PUT with only `collection.schema`, a
// declaration that arrived after the content it types, or an append upload's stored rows after
// such a PUT changed the types they were checked against. The segments are read one at a time,
// a group of parts at a time (inflateParts), and scanned with the declared types checked on every
// row; nothing is written to R2.
import { RecordKernel } from "../../csv/record-kernel.ts";
import { CsvScanner, type CsvMode } from "../../csv/scanner.ts";
import type { Limits } from "../../config.ts";
import { ColumnTyper, type TypingPlan } from "../../schema/column-typer.ts";
import type { DeclaredSchema } from "../../schema/declared.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import type { SegmentRow } from "../../model/dataset.ts";
import { inflateParts } from "../../storage/segment-inflate.ts";
import { partsOf } from "../../storage/segment-parts-db.ts";
import { openSegment } from "../../storage/segment-store.ts";

/** Inflated bytes scanned at a time. */
const SCAN_BYTES = 256 * 1024;

export interface Typed {
  schema: TableSchema;
  declared: DeclaredSchema | null;
}

/**
 * Types the table stored in `segments` (in order, header first) under `plan`; or, with a
 * `rows` mode, rows stored without their header (an append upload's, src/uploads/schema.ts).
 */
export async function typeStoredContent(
  bucket: R2Bucket,
  segments: readonly SegmentRow[],
  plan: TypingPlan,
  limits: Limits,
  mode: CsvMode = { kind: "table" },
): Promise<Typed> {
  const typer = new ColumnTyper(plan);
  const scanner = new CsvScanner(
    mode,
    { maxColumns: limits.maxColumns, maxFieldBytes: limits.maxFieldBytes, maxHeaderBytes: limits.maxHeaderBytes },
    typer,
    undefined,
    new RecordKernel(typer, limits.maxFieldBytes),
  );
  for (const segment of segments) {
    for await (const bytes of inflateParts(await openSegment(bucket, segment.key), partsOf(segment), SCAN_BYTES)) scanner.push(bytes);
  }
  scanner.finish();
  return { schema: typer.schema(), declared: typer.declaration() };
}
