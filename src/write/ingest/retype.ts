// Typing content that is already stored (docs/column-types.md): a PUT with only `collection.schema`, a
// declaration that arrived after the content it types, or an append upload's stored rows after
// such a PUT changed the types they were checked against. The segments are inflated one at a time
// and scanned with the declared types checked on every row; nothing is written to R2.
import { RecordKernel } from "../../csv/record-kernel.ts";
import { CsvScanner, type CsvMode } from "../../csv/scanner.ts";
import type { Limits } from "../../config.ts";
import { ColumnTyper, type TypingPlan } from "../../schema/column-typer.ts";
import type { DeclaredSchema } from "../../schema/declared.ts";
import type { TableSchema } from "../../schema/table-schema.ts";
import { inflateSegment } from "../../storage/segment-inflate.ts";
import { openSegment } from "../../storage/segment-store.ts";
import { sequenceStream } from "../../wire/stream-sequence.ts";

export interface Typed {
  schema: TableSchema;
  declared: DeclaredSchema | null;
}

/**
 * Types the table stored in `segmentKeys` (in order, header first) under `plan`; or, with a
 * `rows` mode, rows stored without their header (an append upload's, src/uploads/schema.ts).
 */
export async function typeStoredContent(
  bucket: R2Bucket,
  segmentKeys: readonly string[],
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
  const content = sequenceStream(segmentKeys.map((key) => async () => inflateSegment(await openSegment(bucket, key))));
  const reader = content.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      scanner.push(value);
    }
    scanner.finish();
  } catch (error: unknown) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
  return { schema: typer.schema(), declared: typer.declaration() };
}
