// Cells the twin cannot give back as written (a datetime or time it keeps as an instant) read
// from the CSV segments for the rows of an answer only: its positions grouped by the segment part
// that holds them, each part read once from the first wanted row to the last (read/row-reader.ts).
import type { SegmentRow } from "../model/dataset.ts";
import { contentPieces, locateRow, readRowWindow } from "../read/row-reader.ts";
import type { Cell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import { openSegment } from "../storage/segment-store.ts";
import { castRows } from "./cast-rows.ts";
import type { CompiledQuery } from "./language/query.ts";

/** Puts the cells of `fill` (field indices) into `rows` (projected as `query.columns`), the rows at `positions`. */
export async function fillFromSegments(bucket: R2Bucket, schema: TableSchema, segments: readonly SegmentRow[], query: CompiledQuery, fill: readonly number[], rows: Cell[][], positions: readonly number[]): Promise<void> {
  if (fill.length === 0 || rows.length === 0) return;
  const pieces = contentPieces(segments);
  const byPiece = new Map<number, number[]>();
  for (const position of positions) {
    const at = locateRow(pieces, position);
    if (at === null) throw new Error(`row ${position} is not in the version`);
    byPiece.set(at.index, [...(byPiece.get(at.index) ?? []), position]);
  }
  const texts = new Map<number, string[]>();
  const missing = new Set(schema.missingValues);
  for (const wanted of byPiece.values()) {
    const first = Math.min(...wanted);
    const last = Math.max(...wanted);
    const records = await readRowWindow(segments, (key, range) => openSegment(bucket, key, range), { offset: first, limit: last - first + 1, maxChars: Number.MAX_SAFE_INTEGER });
    for (const position of wanted) texts.set(position, records[position - first]!);
  }
  const slots = fill.map((c) => ({ c, slot: query.columns.indexOf(c) })).filter(({ slot }) => slot >= 0);
  rows.forEach((row, i) => {
    const record = texts.get(positions[i]!)!;
    const cast = castRows(schema, missing, [record], fill)[0]!;
    for (const { c, slot } of slots) row[slot] = cast[c] ?? null;
  });
}
