// Runs a compiled query (docs/queries.md) over a version's rows, whatever they are read from:
// the Parquet twin's row groups or the CSV segments (sources in twin-source.ts and
// segment-source.ts). It counts `matched`, keeps the offset/limit window (a bounded top-k when
// there is an `order`), reads only the columns it still needs, and stops before the scan budget
// is spent (docs/api.md "Querying rows": what `partial` means).
import type { Cell } from "../schema/cast.ts";
import { rank, type Ranked } from "./language/ordering.ts";
import { whereColumns, type CompiledQuery } from "./language/query.ts";
import { TopK } from "./language/top-k.ts";

/** A run of consecutive rows a source reads at once: a Parquet row group, a CSV segment. */
export interface ScanPiece {
  rowCount: number;
  /** 0-based position of its first row among the version's rows. */
  firstRow: number;
  /** What reading these columns costs against the scan budget (bytes of CSV text or of uncompressed pages). */
  cost(columns: readonly number[]): number;
  /**
   * Its rows in order, in batches; each row is schema-wide and holds at least `columns`. A batch
   * without `positions` continues where the last ended; one with them may leave out rows that
   * surely do not match (a source that evaluates `where` itself, on fewer columns, first).
   */
  rows(columns: readonly number[]): AsyncIterable<ScanBatch>;
}

export interface ScanBatch {
  rows: Cell[][];
  /** Each row's 0-based position among the version's rows; absent: consecutive. */
  positions?: readonly number[];
}

export interface WindowRequest {
  offset: number;
  limit: number;
  /** Cell characters after which the window ends early; it always holds at least one row. */
  maxChars: number;
  budget: number;
}

export interface WindowAnswer {
  /** The window's rows, cells in the order of the query's columns. */
  rows: Cell[][];
  /** Rows that match; a lower bound when partial. */
  matched: number;
  /** The budget ran out before every row was read. */
  partial: boolean;
  /** Cost spent, in the units of ScanPiece.cost. */
  scanned: number;
  /** Each answered row's 0-based position among the version's rows. */
  positions: number[];
}

/** A row's cells in the order of the query's columns. */
export function project(query: CompiledQuery, row: readonly Cell[]): Cell[] {
  return query.columns.map((column) => row[column] ?? null);
}

function cellChars(row: readonly Cell[]): number {
  let chars = 0;
  for (const cell of row) chars += typeof cell === "string" ? cell.length : 8;
  return chars;
}

/**
 * The query's window: rows offset…offset+limit of the matches in the query's order, and how many
 * match. `read` are the columns to read (default: all the query needs); others answer null.
 */
export async function answerWindow(pieces: readonly ScanPiece[], query: CompiledQuery, request: WindowRequest, read: readonly number[] = query.needed): Promise<WindowAnswer> {
  const filterColumns = [...whereColumns(query.where)].sort((a, b) => a - b);
  const wanted = request.offset + request.limit;
  const top = query.order.length > 0 ? new TopK<Ranked<Cell[]>>(wanted, query.compare) : null;
  const rows: Cell[][] = [];
  const positions: number[] = [];
  let chars = 0;
  let matched = 0;
  let scanned = 0;
  let partial = false;
  const windowFull = () => top === null && (rows.length >= request.limit || (rows.length > 0 && chars >= request.maxChars));
  for (const piece of pieces) {
    const full = windowFull();
    // Once the window is full only `matched` is left to count: without a `where` every row matches.
    if (full && query.where === null) {
      matched += piece.rowCount;
      continue;
    }
    const columns = full ? filterColumns : read;
    const cost = piece.cost(columns);
    if (scanned + cost > request.budget) {
      partial = true;
      break;
    }
    scanned += cost;
    let next = piece.firstRow;
    for await (const batch of piece.rows(columns)) {
      for (const [i, row] of batch.rows.entries()) {
        const position = batch.positions?.[i] ?? next;
        next = position + 1;
        if (query.matches(row)) {
          matched++;
          if (top !== null) top.push(rank(query.order, row, position, row));
          else if (matched > request.offset && !windowFull()) {
            const projected = project(query, row);
            rows.push(projected);
            positions.push(position);
            chars += cellChars(projected);
          }
        }
      }
    }
  }
  if (top !== null) {
    for (const item of top.sorted().slice(request.offset)) {
      if (rows.length > 0 && chars >= request.maxChars) break;
      const projected = project(query, item.item);
      rows.push(projected);
      positions.push(item.position);
      chars += cellChars(projected);
    }
  }
  return { rows, matched, partial, scanned, positions };
}

/** What a whole scan of `columns` costs: the plan the CSV export checks against its budget before its first byte. */
export function planCost(pieces: readonly ScanPiece[], columns: readonly number[]): number {
  return pieces.reduce((sum, piece) => sum + piece.cost(columns), 0);
}

/** Every matching row in file order, projected, batch by batch: memory holds one batch. */
export async function* matchingRows(pieces: readonly ScanPiece[], query: CompiledQuery): AsyncGenerator<Cell[][]> {
  for (const piece of pieces) {
    for await (const batch of piece.rows(query.needed)) {
      const out: Cell[][] = [];
      for (const row of batch.rows) if (query.matches(row)) out.push(project(query, row));
      if (out.length > 0) yield out;
    }
  }
}

export interface OrderedPass {
  /** The next rows in the query's order, at most `size`, as ranked rows. */
  rows: Ranked<Cell[]>[];
  /** Rows that match (every pass counts them all). */
  matched: number;
}

/**
 * One pass of a sorted export: the best `size` matching rows that come after `after` in the
 * query's order (its order is total: ties fall back to file position). Each pass reads every
 * piece again, so memory holds `size` rows whatever the answer's size.
 */
export async function orderedPass(pieces: readonly ScanPiece[], query: CompiledQuery, size: number, after: Ranked<Cell[]> | null): Promise<OrderedPass> {
  const top = new TopK<Ranked<Cell[]>>(size, query.compare);
  let matched = 0;
  for (const piece of pieces) {
    let next = piece.firstRow;
    for await (const batch of piece.rows(query.needed)) {
      for (const [i, row] of batch.rows.entries()) {
        const position = batch.positions?.[i] ?? next;
        next = position + 1;
        if (query.matches(row)) {
          matched++;
          const ranked = rank(query.order, row, position, row);
          if (after === null || query.compare(ranked, after) > 0) top.push(ranked);
        }
      }
    }
  }
  return { rows: top.sorted(), matched };
}
