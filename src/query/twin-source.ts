// The version's rows read from its Parquet twin (docs/columnar.md, docs/queries.md#pruning): each
// part's metadata (kept beside its row groups) gives every row group's chunk offsets and min/max
// statistics, so row groups that cannot match are skipped without a read, and only the chunks of
// the needed columns are fetched, with one R2 range read per run of adjacent chunks.
import type { Cell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import { decodePartMetadata, type ChunkMeta, type PartMetadata } from "../columnar/parquet/index.ts";
import { readChunk, statisticCell, TEXT_EXACT_KINDS } from "../columnar/parquet/read-chunk.ts";
import { blockMayMatch, type ColumnStatistics } from "./language/pruning.ts";
import { whereColumns, type CompiledQuery } from "./language/query.ts";
import type { ScanPiece } from "./scan.ts";

/** Reads `length` bytes of object `key` from `offset`. */
export type RangeRead = (key: string, offset: number, length: number) => Promise<Uint8Array>;

export interface TwinPart {
  key: string;
  /** Its row groups' bytes, then `metaBytes` of metadata. */
  dataBytes: number;
  metaBytes: number;
}

/** Chunks closer than this are fetched in one range read, the gap read and dropped. */
const COALESCE_GAP = 64 * 1024;
/** Part metadata read at once. */
const METADATA_READS = 6;
/**
 * Parts' metadata kept in the isolate: a part object is written once under a fresh key and never
 * changes (docs/storage-protocol.md "The Parquet twin"), so a repeated query on a version skips
 * those reads. Bounded; the oldest entry goes first.
 */
const KEPT_METADATA = 4096;
const keptMetadata = new Map<string, PartMetadata>();

function keepMetadata(key: string, meta: PartMetadata): void {
  if (keptMetadata.size >= KEPT_METADATA) keptMetadata.delete(keptMetadata.keys().next().value!);
  keptMetadata.set(key, meta);
}

async function partMetadata(read: RangeRead, parts: readonly TwinPart[]): Promise<PartMetadata[]> {
  const out: PartMetadata[] = new Array<PartMetadata>(parts.length);
  let next = 0;
  const worker = async () => {
    while (next < parts.length) {
      const index = next++;
      const part = parts[index]!;
      const kept = keptMetadata.get(part.key);
      if (kept) {
        out[index] = kept;
        continue;
      }
      out[index] = decodePartMetadata(new TextDecoder().decode(await read(part.key, part.dataBytes, part.metaBytes)));
      keepMetadata(part.key, out[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(METADATA_READS, parts.length) }, worker));
  return out;
}

function groupStatistics(schema: TableSchema, meta: PartMetadata, columns: readonly ChunkMeta[], rows: number): (ColumnStatistics | undefined)[] {
  return columns.map((chunk, c) => {
    const field = schema.fields[c];
    const kind = meta.kinds[c];
    if (!field || !kind) return undefined;
    const stats: ColumnStatistics = { rowCount: rows, nullCount: chunk.nulls };
    if (chunk.min === null || chunk.max === null) return stats;
    const min = statisticCell(chunk.min, kind, field.type);
    // Parquet leaves NaN out of a double's bounds; the language orders NaN above everything, so
    // the only safe maximum is NaN itself.
    const max = kind === "double" ? "NaN" : statisticCell(chunk.max, kind, field.type);
    return min === undefined || max === undefined ? stats : { ...stats, min, max };
  });
}

/** Whether column `c` of every row group reads back as castCell's cells (or holds only nulls). */
function exact(metadata: readonly PartMetadata[], c: number): boolean {
  return metadata.every((meta) => TEXT_EXACT_KINDS.has(meta.kinds[c]!) || meta.rowGroups.every((group) => group.columns[c]!.nulls === group.columns[c]!.values));
}

/** Byte runs covering the chunks of `columns`, adjacent ones joined. */
function runs(chunks: readonly ChunkMeta[], columns: readonly number[]): { offset: number; end: number; columns: number[] }[] {
  const sorted = [...columns].sort((a, b) => chunks[a]!.offset - chunks[b]!.offset);
  const out: { offset: number; end: number; columns: number[] }[] = [];
  for (const c of sorted) {
    const chunk = chunks[c]!;
    const last = out.at(-1);
    if (last && chunk.offset - last.end <= COALESCE_GAP) {
      last.end = Math.max(last.end, chunk.offset + chunk.compressed);
      last.columns.push(c);
    } else out.push({ offset: chunk.offset, end: chunk.offset + chunk.compressed, columns: [c] });
  }
  return out;
}

export interface TwinScan {
  /** The row groups that may hold a match. */
  pieces: ScanPiece[];
  /** The columns to read from them. */
  read: number[];
  /** Answered columns the twin holds as instants, not as written (datetime, time): the caller fills them from the CSV. */
  fill: number[];
}

/**
 * The twin's row groups that may hold a match, as scan pieces. `where` and `order` columns must
 * read back exactly; answered columns that do not are left to the caller when `allowFill`, else
 * the twin cannot answer (null: the CSV segments answer).
 */
export async function twinPieces(read: RangeRead, parts: readonly TwinPart[], schema: TableSchema, query: CompiledQuery, allowFill = false): Promise<TwinScan | null> {
  const metadata = await partMetadata(read, parts);
  const compared = whereColumns(query.where, new Set(query.order.map((term) => term.column)));
  const fill = query.needed.filter((c) => !exact(metadata, c));
  if (fill.some((c) => compared.has(c)) || (fill.length > 0 && !allowFill)) return null;
  const pieces: ScanPiece[] = [];
  const filterColumns = whereColumns(query.where);
  let firstRow = 0;
  metadata.forEach((meta, p) => {
    const part = parts[p]!;
    for (const group of meta.rowGroups) {
      const groupFirst = firstRow;
      firstRow += group.rows;
      if (!blockMayMatch(query.where, groupStatistics(schema, meta, group.columns, group.rows), group.rows)) continue;
      pieces.push({
        rowCount: group.rows,
        firstRow: groupFirst,
        cost: (columns) => columns.reduce((sum, c) => sum + group.columns[c]!.uncompressed, 0),
        rows: async function* (columns) {
          const width = schema.fields.length;
          const cells: (Cell[] | undefined)[] = new Array<Cell[] | undefined>(width);
          const fetch = async (wanted: readonly number[], only: Uint8Array | null = null) => {
            await Promise.all(
              runs(group.columns, wanted).map(async (run) => {
                const bytes = await read(part.key, run.offset, run.end - run.offset);
                for (const c of run.columns) {
                  const chunk = group.columns[c]!;
                  const at = chunk.offset - run.offset;
                  cells[c] = readChunk(bytes.subarray(at, at + chunk.compressed), group.rows, meta.kinds[c]!, schema.fields[c]!.type, only);
                }
              }),
            );
          };
          const rowAt = (r: number, wanted: readonly number[]): Cell[] => {
            const row: Cell[] = new Array<Cell>(width).fill(null);
            for (const c of wanted) row[c] = cells[c]![r] ?? null;
            return row;
          };
          // The `where` columns first: the other columns of a row group without a match are never
          // fetched, and rows are built only for the matches.
          const filter = columns.filter((c) => filterColumns.has(c));
          if (query.where === null || filter.length === 0) {
            await fetch(columns);
            yield { rows: Array.from({ length: group.rows }, (_, r) => rowAt(r, columns)) };
            return;
          }
          await fetch(filter);
          const hits: number[] = [];
          const probe: Cell[] = new Array<Cell>(width).fill(null);
          const filterCells = filter.map((c) => [c, cells[c]!] as const);
          for (let r = 0; r < group.rows; r++) {
            for (const [c, column] of filterCells) probe[c] = column[r] ?? null;
            if (query.matches(probe)) hits.push(r);
          }
          if (hits.length === 0) return;
          const only = new Uint8Array(group.rows);
          for (const r of hits) only[r] = 1;
          await fetch(columns.filter((c) => !filterColumns.has(c)), only);
          yield { rows: hits.map((r) => rowAt(r, columns)), positions: hits.map((r) => groupFirst + r) };
        },
      });
    }
  });
  return { pieces, read: query.needed.filter((c) => !fill.includes(c)), fill };
}
