// The column types' 422s (docs/column-types.md) as problem+json: invalid_schema and schema_mismatch carry row, column, value and
// expected, and the detail names the PUT that would widen the column's type.
import { ApiError, type ProblemExtensions } from "../model/errors.ts";
import { cellClasses, NUMBER, PADDED_NUMBER } from "../schema/cell-classes.ts";
import { SchemaError } from "../schema/schema-error.ts";

/** The type a declaration would need for the cell to fit: number for a decimal in an integer column, else string. */
function widerType(value: string, expected: string): string {
  const bytes = new TextEncoder().encode(value);
  if (expected.startsWith("integer") && bytes.length > 0 && cellClasses(bytes, 0, bytes.length) & (NUMBER | PADDED_NUMBER)) return "number";
  return "string";
}

/**
 * `append`: the rows broke the stored schema, which a schema-only PUT widens. Otherwise the
 * request's own declaration was broken, and the same request with a wider one would pass.
 */
export function schemaProblem(error: SchemaError, datasetId: string, kind: "create" | "update" | "append"): ApiError {
  const extensions: ProblemExtensions = {};
  for (const [key, value] of Object.entries(error.details)) if (value !== undefined) extensions[key] = value;
  const { column, value, expected } = error.details;
  if (error.code === "invalid_schema" || column === undefined || value === undefined || expected === undefined) {
    return new ApiError(error.code, `collection.schema: ${error.message}.`, extensions);
  }
  const widened = JSON.stringify({ schema: { fields: [{ name: column, type: widerType(value, expected) }] } });
  const sentence = `${error.message[0]!.toUpperCase()}${error.message.slice(1)}.`;
  const fix =
    kind === "append"
      ? `To widen the column's type, PUT /v1/dataset/${datasetId} with the collection ${widened} (no dataset part needed), then send these rows again.`
      : `Correct the cell, or declare a wider type in this request's collection, e.g. ${widened}.`;
  return new ApiError("schema_mismatch", `${sentence} ${fix}`, extensions);
}

/** Runs `work`, turning a SchemaError from the scan into its problem. */
export async function withSchemaProblems<T>(datasetId: string, kind: "create" | "update" | "append", work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (error instanceof SchemaError) throw schemaProblem(error, datasetId, kind);
    throw error;
  }
}
