// A part's column statistics as the Parquet build makes them: the rows written by the part writer
// with every column's feed listening, the summary stored and read back.
import { PartWriter, startKinds } from "../../src/columnar/parquet/index.ts";
import { columnFeeds } from "../../src/columnar/statistics/column-feed.ts";
import { createSummaries, decodeSummary, encodeSummary, type TableSummary } from "../../src/columnar/statistics/table-summary.ts";
import type { TableSchema } from "../../src/schema/table-schema.ts";

export function partSummary(schema: TableSchema, rows: string[][]): TableSummary {
  const summary = createSummaries(schema);
  const writer = new PartWriter(schema, startKinds(schema), { sinks: columnFeeds(summary, schema) });
  for (let at = 0; at < rows.length; at += 5000) writer.addRows(rows.slice(at, at + 5000));
  const result = writer.finish();
  if (!result.ok) throw new Error(`kinds widened to ${result.kinds.join(",")}`);
  summary.rows = result.metadata.rows;
  return decodeSummary(encodeSummary(summary));
}
