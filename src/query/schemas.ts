// Request and response schemas of the query routes (docs/api.md "Querying rows", docs/queries.md):
// `/rows` and `/rows.csv` take `where`, `columns` and `order`; `/rows` also `offset` and `limit`.
import { z } from "@hono/zod-openapi";
import { ROWS_MAX_LIMIT } from "../config.ts";
import { CellSchema, TableSchemaSchema } from "../read/reader-schemas.ts";

/** A whole number in the query string: digits only, so `?offset=` or `?limit=1e3` is a 400. */
function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, "must be a whole number")
    .pipe(z.coerce.number<string>().int().min(min).max(max));
}

/** The language checks the text itself (docs/queries.md#errors); this bounds what reaches it. */
const QUESTION = {
  where: z
    .string()
    .max(4096 * 4)
    .optional()
    .openapi({ description: "Which rows: comparisons, `IN`, `IS NULL`, `LIKE`, joined by `AND`, `OR`, `NOT` (docs/queries.md). At most 4096 bytes.", example: "amount > 100 AND city = 'Zürich'" }),
  columns: z
    .string()
    .max(65536)
    .optional()
    .openapi({ description: "Which columns, in this order: names separated by commas, a name holding a comma in double quotes. Default: all, in file order.", example: 'city,amount,"total, gross"' }),
  order: z
    .string()
    .max(65536)
    .optional()
    .openapi({ description: "Sort by these columns, `-` before a name for descending; nulls last, ties in file order. Default: file order.", example: "-amount,city" }),
};

export const RowsQuerySchema = z.strictObject({
  ...QUESTION,
  offset: queryInteger(0, Number.MAX_SAFE_INTEGER).optional().openapi({ description: "How many matching rows to skip; default 0." }),
  limit: queryInteger(1, ROWS_MAX_LIMIT).optional().openapi({ description: `1-${ROWS_MAX_LIMIT}, default 100.` }),
});

export const RowsCsvQuerySchema = z.strictObject(QUESTION);

export const RowsResponseSchema = z
  .object({
    columns: z.array(z.string()).openapi({ description: "The answered columns' header cells as written (all of them unless `columns` picked some); the schema's field names are these made unique and non-empty." }),
    schema: TableSchemaSchema,
    rows: z.array(z.array(CellSchema)).openapi({ description: "Matching rows from `offset` on, in the asked order, each cell typed by its field." }),
    offset: z.number().int(),
    total: z.number().int().openapi({ description: "Data rows in the version." }),
    matched: z.number().int().openapi({ description: "Rows that match `where` (all rows without one); with `partial`, those found before the scan budget ran out." }),
    partial: z.boolean().openapi({ description: "True when the query met the scan budget (docs/queries.md#cost): `rows` and `matched` cover only the rows read." }),
  })
  .openapi("DatasetRows");
export type RowsResponse = z.infer<typeof RowsResponseSchema>;
