// Request and response schemas of the read-only endpoints beyond the original interface:
// a dataset's version list, and the Table Schema and typed cells that rows answers carry (docs/api.md).
import { z } from "@hono/zod-openapi";
import { LIST_MAX_LIMIT } from "../config.ts";
import { FIELD_TYPES } from "../schema/table-schema.ts";

/** A whole number in the query string: digits only, so `?offset=` or `?limit=1e3` is a 400. */
function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, "must be a whole number")
    .pipe(z.coerce.number<string>().int().min(min).max(max));
}

export const VersionsQuerySchema = z.strictObject({
  limit: queryInteger(1, LIST_MAX_LIMIT).optional().openapi({ description: `1-${LIST_MAX_LIMIT}, default 100.` }),
  cursor: z.string().min(1).max(512).optional().openapi({ description: "Opaque; from the `Link: rel=\"next\"` header." }),
});

export const VersionSummarySchema = z
  .object({
    version: z.string(),
    created: z.string(),
    rows: z.number().int().openapi({ description: "Data rows (the header not counted)." }),
    bytes: z.number().int().openapi({ description: "Uncompressed content bytes." }),
    columns: z.array(z.string()).openapi({ description: "The header's cells, in order." }),
    parquet: z.enum(["ready", "pending", "failed"]).openapi({
      description: "The version's Parquet file (`…/{name}.parquet`): built, still being built after the commit, or failed for good (then `parquet_error` says why).",
    }),
    parquet_error: z.string().optional().openapi({ description: "Why the Parquet file could not be built; only with `\"parquet\": \"failed\"`." }),
  })
  .openapi("DatasetVersionSummary");
export const VersionsResponseSchema = z.object({ results: z.array(VersionSummarySchema) }).openapi("DatasetVersionList");

export const TableSchemaFieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    format: z.string().optional().openapi({ description: "`default`, `any`, or a strptime pattern on a declared date, datetime or time (`%d/%m/%Y`)." }),
    title: z.string().optional(),
    description: z.string().optional(),
    decimalChar: z.string().optional(),
    groupChar: z.string().optional(),
    trueValues: z.array(z.string()).optional(),
    falseValues: z.array(z.string()).optional(),
    constraints: z.object({ required: z.boolean().optional() }).optional(),
  })
  .openapi("TableSchemaField");

export const TableSchemaSchema = z
  .object({
    fields: z.array(TableSchemaFieldSchema).openapi({
      description: "One field per column, in column order, named by the header; a repeated name is counted on (`a`, `a2`) and a blank one is `field<n>` (its column), so names are unique.",
    }),
    missingValues: z.array(z.string()).openapi({ description: "Cells that mean \"no value\"; by default only the empty cell." }),
  })
  .openapi("TableSchema", {
    description: "A Frictionless Table Schema (v1) of a version's columns: inferred over every row, or declared by the publisher (docs/column-types.md).",
  });

export const CellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]).openapi("Cell", {
  description:
    "A cell typed by its field: integer and number as JSON numbers (an integer past ±(2^53−1), NaN and INF as their text), boolean as true/false, a missing cell as null, anything else as its text.",
});
