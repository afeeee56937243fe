// The types an append sent as a resumable upload is held to (docs/column-types.md, docs/resumable-uploads.md).
// Its rows are checked against the dataset's types as each chunk lands; a schema-only
// PUT may change those types while the upload runs. The upload then goes on with the types the
// dataset has now: the rows it already stored are checked again under them (one read of what it
// stored, once per change), so a widening the client already sent is never asked for again, and
// a narrowing refuses what no longer fits instead of committing it.
import type { Limits } from "../config.ts";
import type { TypingPlan } from "../schema/column-typer.ts";
import { getLatestState } from "../storage/datasets-db.ts";
import { typeStoredContent } from "../write/ingest/retype.ts";
import { withSchemaProblems } from "../write/schema-problems.ts";
import type { UploadPlan } from "./creation.ts";
import type { SegmentRow } from "../model/dataset.ts";

/**
 * The typing the upload's rows are held to from now on: the plan's, or the latest version's once
 * every stored row passed it (a SchemaError otherwise, as schema_mismatch). A latest version with
 * other columns is left to the commit, which refuses it.
 */
export async function currentTyping(
  env: { DB: D1Database; CONTENT: R2Bucket },
  datasetId: string,
  plan: UploadPlan,
  stored: readonly SegmentRow[],
  limits: Limits,
): Promise<TypingPlan> {
  if (plan.typing.kind !== "check" || plan.appendTo === null) return plan.typing;
  const latest = await getLatestState(env.DB, datasetId);
  if (!latest) return plan.typing;
  const { columns, schema } = latest.version;
  const header = plan.appendTo;
  if (columns.length !== header.length || columns.some((c, i) => c !== header[i])) return plan.typing;
  if (JSON.stringify(schema) === JSON.stringify(plan.typing.schema)) return plan.typing;
  const typing: TypingPlan = { kind: "check", schema };
  const mode = { kind: "rows" as const, expectedColumns: header.length, header };
  await withSchemaProblems(datasetId, "append", () => typeStoredContent(env.CONTENT, stored, typing, limits, mode));
  return typing;
}
