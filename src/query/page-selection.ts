// Which pages of a twin row group a query reads (docs/queries.md#pruning). The `where` columns'
// page bounds (the column index, also kept in the part metadata) rule out row ranges as row group
// statistics rule out row groups; then only the pages holding candidate rows, or matched rows,
// are fetched, each located by the offset index (docs/columnar.md "Encodings, codec, sizes").
import type { ChunkMeta, ColumnKind } from "../columnar/parquet/index.ts";
import { statisticCell } from "../columnar/parquet/read-chunk.ts";
import type { Field } from "../schema/table-schema.ts";
import { blockMayMatch, type ColumnStatistics } from "./language/pruning.ts";
import type { TypedExpr } from "./language/typing.ts";

/** Rows `from` up to `to` (exclusive) of a row group. */
export interface RowRange {
  from: number;
  to: number;
}

/** Statistics of a block of `rows` rows with `nulls` nulls and Parquet binary bounds, as the pruning reads them. */
export function blockStatistics(field: Field, kind: ColumnKind, rows: number, nulls: number, min: Uint8Array | null, max: Uint8Array | null): ColumnStatistics {
  const stats: ColumnStatistics = { rowCount: rows, nullCount: nulls };
  if (min === null || max === null) return stats;
  const low = statisticCell(min, kind, field.type);
  // Parquet leaves NaN out of a double's bounds; the language orders NaN above everything, so
  // the only safe maximum is NaN itself.
  const high = kind === "double" ? "NaN" : statisticCell(max, kind, field.type);
  return low === undefined || high === undefined ? stats : { ...stats, min: low, max: high };
}

/** Where page `i` of a chunk of `rows` rows ends. */
function pageEnd(chunk: ChunkMeta, i: number, rows: number): number {
  return chunk.pageFirstRows[i + 1] ?? rows;
}

interface PageBlock {
  firstRow: number;
  stats: ColumnStatistics;
}

/** Each page of a chunk with its statistics, or null when the chunk has no page bounds (a part of metadata version 1). */
function pageBlocks(chunk: ChunkMeta, field: Field, kind: ColumnKind, rows: number): PageBlock[] | null {
  const index = chunk.pageIndex;
  if (index === null) return null;
  return chunk.pageFirstRows.map((firstRow, i) => ({
    firstRow,
    stats: blockStatistics(field, kind, pageEnd(chunk, i, rows) - firstRow, index.nulls[i]!, index.mins[i]!, index.maxs[i]!),
  }));
}

/**
 * The row ranges of a row group of `rows` rows that may hold a match of `where`, from the page
 * bounds of `filter` columns. Pages of different columns need not line up: the rows are cut at
 * every page start of any of them, and each piece is judged with the statistics of the pages
 * holding it (a page's bounds also bound any of its rows). Adjacent candidates are joined.
 */
export function candidateRanges(where: TypedExpr | null, rows: number, chunks: readonly ChunkMeta[], fields: readonly Field[], kinds: readonly ColumnKind[], filter: readonly number[]): RowRange[] {
  const columns: [number, PageBlock[]][] = [];
  for (const c of filter) {
    const blocks = pageBlocks(chunks[c]!, fields[c]!, kinds[c]!, rows);
    if (blocks !== null) columns.push([c, blocks]);
  }
  const starts = [...new Set([0, ...columns.flatMap(([, blocks]) => blocks.map((block) => block.firstRow))])].filter((row) => row < rows).sort((a, b) => a - b);
  const cursors = columns.map(() => 0);
  const stats: (ColumnStatistics | undefined)[] = new Array<ColumnStatistics | undefined>(chunks.length);
  const out: RowRange[] = [];
  for (let i = 0; i < starts.length; i++) {
    const from = starts[i]!;
    const to = starts[i + 1] ?? rows;
    columns.forEach(([c, blocks], k) => {
      while (cursors[k]! + 1 < blocks.length && blocks[cursors[k]! + 1]!.firstRow <= from) cursors[k]!++;
      stats[c] = blocks[cursors[k]!]!.stats;
    });
    if (!blockMayMatch(where, stats, to - from)) continue;
    const last = out.at(-1);
    if (last && last.to === from) last.to = to;
    else out.push({ from, to });
  }
  return out;
}

/** Ranges of single rows (sorted), adjacent ones joined. */
export function rowRanges(rows: readonly number[]): RowRange[] {
  const out: RowRange[] = [];
  for (const row of rows) {
    const last = out.at(-1);
    if (last && last.to === row) last.to = row + 1;
    else out.push({ from: row, to: row + 1 });
  }
  return out;
}

/** The pages of a chunk of `rows` rows that hold any row of `ranges` (sorted, disjoint). */
export function pagesHolding(chunk: ChunkMeta, rows: number, ranges: readonly RowRange[]): number[] {
  const out: number[] = [];
  let r = 0;
  for (let i = 0; i < chunk.pageFirstRows.length && r < ranges.length; i++) {
    const from = chunk.pageFirstRows[i]!;
    const to = pageEnd(chunk, i, rows);
    while (r < ranges.length && ranges[r]!.to <= from) r++;
    if (r < ranges.length && ranges[r]!.from < to) out.push(i);
  }
  return out;
}
