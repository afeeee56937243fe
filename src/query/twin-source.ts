// The version's rows read from its Parquet twin (docs/columnar.md, docs/queries.md#pruning): each
// part's metadata (kept beside its row groups) gives every row group's chunk offsets and min/max
// statistics, and every page's location and bounds, so row groups and pages that cannot match are
// skipped without a read, and only the needed columns are fetched (for a `where`, only the pages
// holding candidate rows, then those holding matches), adjacent byte ranges in one R2 read.
import type { Cell } from "../schema/cast.ts";
import type { TableSchema } from "../schema/table-schema.ts";
import { decodeGroupPages, decodePartHead, joinChunks, PAGE_ROWS, type ChunkHead, type ChunkMeta, type ChunkPages, type PartHead } from "../columnar/parquet/index.ts";
import { INSTANT_KINDS, readChunk, readDictionary, readPages, TEXT_EXACT_KINDS, type Dictionary, type RowCells, type SomePages } from "../columnar/parquet/read-chunk.ts";
import { blockMayMatch, type ColumnStatistics } from "./language/pruning.ts";
import { blockStatistics, candidateRanges, pagesHolding, rowRanges, type RowRange } from "./page-selection.ts";
import { whereColumns, type CompiledQuery } from "./language/query.ts";
import type { ScanPiece } from "./scan.ts";
import { readRuns, type Span } from "./read-runs.ts";
import { KeptInIsolate } from "../storage/kept-in-isolate.ts";
import { KeptDictionaries } from "./kept-dictionaries.ts";

/** Reads `length` bytes of object `key` from `offset`. */
export type RangeRead = (key: string, offset: number, length: number) => Promise<Uint8Array>;

export interface TwinPart {
  key: string;
  /** Its row groups' bytes, then `metaBytes` of its head, then `summaryBytes` of statistics, then (version 3) its row groups' pages. */
  dataBytes: number;
  metaBytes: number;
  summaryBytes: number;
}

/** Part heads read at once. */
const METADATA_READS = 6;
/**
 * Bytes of part heads, and of row groups' pages, kept in the isolate (a decoded entry takes a few
 * times its text in the heap): each bound holds those of about 60 versions of 100 MiB
 * (docs/queries.md#cost).
 */
export const KEPT_METADATA_BYTES = 4 * 1024 * 1024;
/** Shared by every request of the isolate: heads under the part's key, pages under the part's key and the row group's number. */
const keptHeads = new KeptInIsolate<PartHead>(KEPT_METADATA_BYTES);
const keptPages = new KeptInIsolate<ChunkPages[]>(KEPT_METADATA_BYTES);
/** Dictionaries decoded, under the part's key and the chunk's offset, so a warm isolate reads data pages only. */
const keptDictionaries = new KeptDictionaries();

async function partHeads(read: RangeRead, parts: readonly TwinPart[]): Promise<PartHead[]> {
  const out: PartHead[] = new Array<PartHead>(parts.length);
  let next = 0;
  const worker = async () => {
    while (next < parts.length) {
      const index = next++;
      const part = parts[index]!;
      const kept = keptHeads.get(part.key);
      if (kept) {
        out[index] = kept;
        continue;
      }
      out[index] = decodePartHead(new TextDecoder().decode(await read(part.key, part.dataBytes, part.metaBytes)));
      keptHeads.keep(part.key, out[index], part.metaBytes);
    }
  };
  await Promise.all(Array.from({ length: Math.min(METADATA_READS, parts.length) }, worker));
  return out;
}

const pagesKey = (part: TwinPart, group: number) => `${part.key}#${group}`;

/**
 * The pages (offset and column index) of each row group of `wanted` ([part, row group]), from the
 * head where it holds them, else from the isolate, else read: each part's wanted pages in as few
 * range reads as read-runs.ts allows, all parts at once.
 */
async function groupPages(read: RangeRead, parts: readonly TwinPart[], heads: readonly PartHead[], wanted: readonly (readonly [number, number])[]): Promise<Map<string, ChunkPages[]>> {
  const out = new Map<string, ChunkPages[]>();
  const missing = new Map<number, (Span & { group: number })[]>();
  for (const [p, g] of wanted) {
    const part = parts[p]!;
    const stored = heads[p]!.rowGroups[g]!.pages;
    const kept = Array.isArray(stored) ? stored : keptPages.get(pagesKey(part, g));
    if (kept) out.set(pagesKey(part, g), kept);
    else if (!Array.isArray(stored)) missing.set(p, [...(missing.get(p) ?? []), { offset: stored.offset, end: stored.offset + stored.length, group: g }]);
  }
  const text = new TextDecoder();
  await Promise.all(
    [...missing].flatMap(([p, spans]) => {
      const part = parts[p]!;
      const start = part.dataBytes + part.metaBytes + part.summaryBytes;
      return readRuns(spans).map(async (run) => {
        const bytes = await read(part.key, start + run.offset, run.end - run.offset);
        for (const span of run.spans) {
          const pages = decodeGroupPages(text.decode(bytes.subarray(span.offset - run.offset, span.end - run.offset)), heads[p]!.kinds.length);
          keptPages.keep(pagesKey(part, span.group), pages, span.end - span.offset);
          out.set(pagesKey(part, span.group), pages);
        }
      });
    }),
  );
  return out;
}

function groupStatistics(schema: TableSchema, meta: PartHead, columns: readonly ChunkHead[], rows: number): (ColumnStatistics | undefined)[] {
  return columns.map((chunk, c) => {
    const field = schema.fields[c];
    const kind = meta.kinds[c];
    return field && kind ? blockStatistics(field, kind, rows, chunk.nulls, chunk.min, chunk.max) : undefined;
  });
}

/** Whether column `c` of every row group reads back as castCell's cells (or holds only nulls). */
function exact(metadata: readonly PartHead[], c: number): boolean {
  return metadata.every((meta) => TEXT_EXACT_KINDS.has(meta.kinds[c]!) || meta.rowGroups.every((group) => group.columns[c]!.nulls === group.columns[c]!.values));
}

/** Whether column `c` is exact, or its instants were all written in the form they read back as. */
function asWritten(metadata: readonly PartHead[], c: number): boolean {
  return (
    exact(metadata, c) ||
    metadata.every((meta) => INSTANT_KINDS.has(meta.kinds[c]!) && meta.rowGroups.every((group) => group.columns[c]!.instantDigits !== null || group.columns[c]!.nulls === group.columns[c]!.values))
  );
}

/** Where the pages of a chunk sit in its part: data page `page`s, then the dictionary page when it has one and `withDictionary`. */
function pageSpans(chunk: ChunkMeta, column: number, pages: readonly number[], withDictionary: boolean): (Span & { column: number; page: number })[] {
  const spans = pages.map((page) => {
    const offset = chunk.offset + chunk.pageOffsets[page]!;
    return { offset, end: offset + chunk.pageSizes[page]!, column, page };
  });
  if (chunk.dictionary && withDictionary) spans.push({ offset: chunk.offset, end: chunk.offset + chunk.pageOffsets[0]!, column, page: -1 });
  return spans;
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
  const metadata = await partHeads(read, parts);
  const compared = whereColumns(query.where, new Set(query.order.map((term) => term.column)));
  const fill = query.needed.filter((c) => !asWritten(metadata, c));
  // Datetimes and times compared in `where` or `order` are read from the CSV segments, as
  // docs/queries.md "Cost" says; the twin gives back only answered ones, where written as it renders them.
  if ([...compared].some((c) => !exact(metadata, c)) || (fill.length > 0 && !allowFill)) return null;
  const filterColumns = whereColumns(query.where);
  const survivors: { p: number; g: number; firstRow: number }[] = [];
  let firstRow = 0;
  metadata.forEach((meta, p) => {
    meta.rowGroups.forEach((group, g) => {
      if (blockMayMatch(query.where, groupStatistics(schema, meta, group.columns, group.rows), group.rows)) survivors.push({ p, g, firstRow });
      firstRow += group.rows;
    });
  });
  // Only a `where` reads pages by their bounds; then the pages of every row group it may read
  // come in one round of reads, before the first row group's.
  const pagesOf = query.where === null ? new Map<string, ChunkPages[]>() : await groupPages(read, parts, metadata, survivors.map(({ p, g }) => [p, g] as const));
  const pieces = survivors.map(({ p, g, firstRow: groupFirst }): ScanPiece => {
    const part = parts[p]!;
    const meta = metadata[p]!;
    const group = meta.rowGroups[g]!;
    const pages = pagesOf.get(pagesKey(part, g));
    return {
      rowCount: group.rows,
      firstRow: groupFirst,
      cost: (columns) => columns.reduce((sum, c) => sum + group.columns[c]!.uncompressed, 0),
      rows: async function* (columns) {
        const width = schema.fields.length;
        const cells: (RowCells | undefined)[] = new Array<RowCells | undefined>(width);
        const chunks = group.columns;
        const readRun = (run: { offset: number; end: number }) => read(part.key, run.offset, run.end - run.offset);
        /** Whole chunks of `wanted`. */
        const fetchChunks = async (wanted: readonly number[]) => {
          const spans = wanted.map((column) => ({ offset: chunks[column]!.offset, end: chunks[column]!.offset + chunks[column]!.compressed, column }));
          await Promise.all(
            readRuns(spans).map(async (run) => {
              const bytes = await readRun(run);
              for (const { offset, end, column } of run.spans) {
                const chunk = chunks[column]!;
                const whole = readChunk(bytes.subarray(offset - run.offset, end - run.offset), group.rows, meta.kinds[column]!, schema.fields[column]!.type, null, chunk.instantDigits);
                cells[column] = { from: 0, to: group.rows, cells: whole };
              }
            }),
          );
        };
        /** The bytes of the pages of `wanted` holding rows of `ranges`, with each column's dictionary (read and decoded unless kept), and the rows they span. */
        const loadPages = async (paged: readonly ChunkMeta[], wanted: readonly number[], ranges: readonly RowRange[]) => {
          const some = new Map<number, { dictionary: Dictionary | null; pages: { bytes: Uint8Array; firstRow: number }[]; from: number; to: number }>();
          const spans = wanted.flatMap((column) => {
            const chunk = paged[column]!;
            const pages = pagesHolding(chunk, group.rows, ranges);
            const from = pages.length > 0 ? chunk.pageFirstRows[pages[0]!]! : 0;
            const to = pages.length > 0 ? (chunk.pageFirstRows[pages.at(-1)! + 1] ?? group.rows) : 0;
            const dictionary = chunk.dictionary ? (keptDictionaries.get(part.key, chunk.offset, schema.fields[column]!.type) ?? null) : null;
            some.set(column, { dictionary, pages: [], from, to });
            return pageSpans(chunk, column, pages, pages.length > 0 && dictionary === null);
          });
          await Promise.all(
            readRuns(spans).map(async (run) => {
              const bytes = await readRun(run);
              for (const { offset, end, column, page } of run.spans) {
                const slice = bytes.subarray(offset - run.offset, end - run.offset);
                const pages = some.get(column)!;
                if (page < 0) {
                  const type = schema.fields[column]!.type;
                  pages.dictionary = readDictionary(slice, meta.kinds[column]!, type, chunks[column]!.instantDigits);
                  keptDictionaries.keep(part.key, offset, type, pages.dictionary);
                } else pages.pages.push({ bytes: slice, firstRow: paged[column]!.pageFirstRows[page]! });
              }
            }),
          );
          return some;
        };
        /** Cells of the loaded pages' rows; text only of `only`'s rows. */
        const decodePages = (some: ReadonlyMap<number, SomePages & RowRange>, only: Uint8Array | null) => {
          for (const [column, pages] of some) cells[column] = readPages(pages, pages.from, pages.to, meta.kinds[column]!, schema.fields[column]!.type, only, chunks[column]!.instantDigits);
        };
        const cellAt = (column: RowCells, r: number): Cell => column.cells[r - column.from] ?? null;
        const rowAt = (r: number, wanted: readonly number[]): Cell[] => {
          const row: Cell[] = new Array<Cell>(width).fill(null);
          for (const c of wanted) row[c] = cellAt(cells[c]!, r);
          return row;
        };
        // The `where` columns first, only their pages that may hold a match: the other columns'
        // pages are fetched only where they hold matches (or candidates, below).
        const filter = columns.filter((c) => filterColumns.has(c));
        if (query.where === null || filter.length === 0) {
          await fetchChunks(columns);
          yield { rows: Array.from({ length: group.rows }, (_, r) => rowAt(r, columns)) };
          return;
        }
        // Read above with every row group a `where` may read.
        if (pages === undefined) throw new Error(`pages of row group ${g} of part ${part.key} not read`);
        const paged = joinChunks(chunks, pages);
        const candidates = candidateRanges(query.where, group.rows, paged, schema.fields, meta.kinds, filter);
        if (candidates.length === 0) return;
        // Candidates within about a page, the `where` columns' page bounds having ruled out the
        // rest of the row group: the other columns' pages holding them come in the same round
        // as the filter's, so a selective query waits for one round of R2 reads, not two.
        const rest = columns.filter((c) => !filterColumns.has(c));
        const candidateRows = candidates.reduce((sum, range) => sum + range.to - range.from, 0);
        // Both in one call, so their pages share the runs of range reads (and the cap on them).
        const early = rest.length > 0 && candidateRows <= PAGE_ROWS && candidateRows < group.rows ? await loadPages(paged, [...filter, ...rest], candidates) : null;
        const of = (loaded: ReadonlyMap<number, SomePages & RowRange>, wanted: readonly number[]) => new Map(wanted.map((c) => [c, loaded.get(c)!] as const));
        decodePages(early ? of(early, filter) : await loadPages(paged, filter, candidates), null);
        const hits: number[] = [];
        const probe: Cell[] = new Array<Cell>(width).fill(null);
        const filterCells = filter.map((c) => [c, cells[c]!] as const);
        for (const { from, to } of candidates) {
          for (let r = from; r < to; r++) {
            for (const [c, column] of filterCells) probe[c] = cellAt(column, r);
            if (query.matches(probe)) hits.push(r);
          }
        }
        if (hits.length === 0) return;
        const only = new Uint8Array(group.rows);
        for (const r of hits) only[r] = 1;
        if (rest.length > 0) decodePages(early ? of(early, rest) : await loadPages(paged, rest, rowRanges(hits)), only);
        yield { rows: hits.map((r) => rowAt(r, columns)), positions: hits.map((r) => groupFirst + r) };
      },
    };
  });
  return { pieces, read: query.needed.filter((c) => !fill.includes(c)), fill };
}
